package artifacts

import "slices"

// Bounds of a step's error samples: the distinct messages kept per error
// kind, the kinds that keep any, and a message's length in bytes.
const (
	MaxErrorSamples     = 3
	MaxErrorSampleKinds = 32
	MaxErrorSampleBytes = 300
)

// AddErrorSample adds msg to the samples of kind in m, unless it is there
// already or a bound is reached, and returns m (made when nil). msg must
// be printable text, at most MaxErrorSampleBytes long.
func AddErrorSample(m map[string][]string, kind, msg string) map[string][]string {
	if msg == "" {
		return m
	}
	have, ok := m[kind]
	switch {
	case !ok && len(m) >= MaxErrorSampleKinds, len(have) >= MaxErrorSamples, slices.Contains(have, msg):
		return m
	case m == nil:
		m = map[string][]string{}
	}
	m[kind] = append(have, msg)
	return m
}

// MergeErrorSamples adds every sample of from to m (AddErrorSample), kinds
// in order, and returns m.
func MergeErrorSamples(m, from map[string][]string) map[string][]string {
	for _, kind := range sortedKeys(from) {
		for _, msg := range from[kind] {
			m = AddErrorSample(m, kind, msg)
		}
	}
	return m
}
