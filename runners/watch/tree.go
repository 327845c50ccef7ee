package watch

// SampleTree samples process pid and all its descendants, summed: the
// resources of a server that forks a worker per connection (Postgres, a
// pre-fork web server) are mostly in its children. Memory shared between
// them (Postgres's shared buffers) is counted once per process that has
// touched it, as RSS does: the sum overstates the total, and its growth
// includes shared pages as they are first touched. PSSBytes and USSBytes
// add up instead: each shared page is split between the processes that map
// it (PSS), and USS counts private pages only.
func SampleTree(pid int) (Sample, error) {
	total, err := sampleWithPSS(pid)
	if err != nil {
		return Sample{}, err
	}
	for _, child := range descendants(pid) {
		s, err := sampleWithPSS(child)
		if err != nil {
			continue // it exited between the listing and the read
		}
		total.RSSBytes += s.RSSBytes
		total.FDs += s.FDs
		total.Threads += s.Threads
		total.CPUSeconds += s.CPUSeconds
		if total.PSSBytes < 0 || s.PSSBytes < 0 {
			total.PSSBytes, total.USSBytes = -1, -1 // one unreadable: no sum
		} else {
			total.PSSBytes += s.PSSBytes
			total.USSBytes += s.USSBytes
		}
	}
	return total, nil
}

// NewTreeSampler returns a Sampler of process pid and its descendants.
func NewTreeSampler(pid int) *Sampler {
	return newSampler(func() (Sample, error) { return SampleTree(pid) })
}

// sampleWithPSS is SampleProc with PSSBytes and USSBytes.
func sampleWithPSS(pid int) (Sample, error) {
	s, err := SampleProc(pid)
	if err != nil {
		return Sample{}, err
	}
	if s.PSSBytes, s.USSBytes, err = samplePSS(pid); err != nil {
		return Sample{}, err
	}
	return s, nil
}
