//go:build !race

package wsload

const raceOn = false
