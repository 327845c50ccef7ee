package demo

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"sync"
)

// maxUUIDs caps the event UUIDs /ingest remembers (about 40 bytes each:
// 40 MiB at the cap). Past it a new UUID is still accepted but not
// remembered, so a later copy of it is not caught; those seen before the
// cap stay deduplicated (seed 003's early batch keeps its verdict however
// long the soak).
const maxUUIDs = 1 << 20

// uuidSet counts the stored copies of each event UUID: /ingest's
// deduplication (a copy is stored only when the fault no-dedup is on) and
// the per-UUID counts of /ingest/count?uuid= and /ingest/facts.
type uuidSet struct {
	limit  int // the UUIDs remembered at most; 0: maxUUIDs
	mu     sync.Mutex
	copies map[[16]byte]uint32
	full   int64 // new UUIDs not remembered: the set was at maxUUIDs
}

// parseUUID reads a UUID's text (8-4-4-4-12 hex digits, any case); ok is
// false for anything else.
func parseUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	b := []byte(s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36])
	if _, err := hex.Decode(u[:], b); err != nil {
		return u, false
	}
	return u, true
}

// eventFields are the "uuid" and "run" of an event line; ok is false
// when the line is not a JSON object with a UUID there (such an event is
// never a duplicate).
func eventFields(line []byte) (u [16]byte, ok bool, run string) {
	var ev struct {
		UUID string `json:"uuid"`
		Run  string `json:"run"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return u, false, ""
	}
	u, ok = parseUUID(ev.UUID)
	return u, ok, ev.Run
}

// store records one copy of u and reports whether it is new. With keep
// (the fault no-dedup) a copy of a known UUID is stored too, and reported
// new.
func (s *uuidSet) store(u [16]byte, keep bool) (isNew bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.copies == nil {
		s.copies = map[[16]byte]uint32{}
	}
	n, seen := s.copies[u]
	switch {
	case !seen && len(s.copies) >= cmp.Or(s.limit, maxUUIDs):
		s.full++
		return true
	case seen && !keep:
		return false
	}
	s.copies[u] = n + 1
	return true
}

// count is the stored copies of the UUIDs given as text (one that does
// not parse counts 0).
func (s *uuidSet) count(uuids []string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, text := range uuids {
		if u, ok := parseUUID(text); ok {
			n += int64(s.copies[u])
		}
	}
	return n
}
