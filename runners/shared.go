package runners

import "sync"

// Shared holds what the runners of one group's several loads (loads:)
// share, by key: each runner kind keeps its own under a key it names (the
// postgres runner its one embedded database for the group).
type Shared struct {
	mu    sync.Mutex
	items map[string]any
}

// NewShared returns an empty store for one group's loads.
func NewShared() *Shared { return &Shared{items: map[string]any{}} }

// Get returns the item under key, made by make on its first use.
func (s *Shared) Get(key string, make func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.items[key]
	if !ok {
		v = make()
		s.items[key] = v
	}
	return v
}
