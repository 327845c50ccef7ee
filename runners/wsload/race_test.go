//go:build race

package wsload

// raceOn: the race detector makes each connect about 20 times slower.
const raceOn = true
