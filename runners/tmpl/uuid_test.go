package tmpl

import (
	"regexp"
	"testing"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestUUIDsAreDistinct: 8 workers' states (each seeded on its own, as a
// step's workers are) render 2,500 requests of two {{uuid}}s each: all
// 40,000 are version 4 UUIDs and no two are the same, within a request,
// within a worker or across workers. (httpload's
// TestTemplatedUUIDsAreDistinct shows the clients send what is rendered.)
func TestUUIDsAreDistinct(t *testing.T) {
	const workers, requests = 8, 2500
	tp := mustCompile(t, "{{uuid}} {{uuid}}", nil)
	seen := make(map[string]bool, 2*workers*requests)
	for range workers {
		s := NewState(nil, nil)
		for range requests {
			s.Next()
			out := tp.Append(nil, s)
			for _, u := range []string{string(out[:36]), string(out[37:])} {
				if !uuidV4.MatchString(u) {
					t.Fatalf("rendered %q, want two version 4 UUIDs", out)
				}
				if seen[u] {
					t.Fatalf("uuid %s rendered twice", u)
				}
				seen[u] = true
			}
		}
	}
	if len(seen) != 2*workers*requests {
		t.Errorf("%d distinct UUIDs, want %d", len(seen), 2*workers*requests)
	}
}
