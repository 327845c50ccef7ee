package demo

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync"
)

var docWords = []string{
	"latency", "throughput", "server", "stream", "handshake", "packet", "window",
	"memory", "soak", "baseline", "percentile", "histogram", "connection", "retry",
	"backoff", "subscriber", "event", "budget", "kernel", "buffer", "queue", "load",
	"the", "a", "of", "and", "under", "with", "while", "every", "each", "steady",
}

const maxCachedDocs = 256

var docCache struct {
	sync.Mutex
	m map[string][]byte
}

// Document returns the demo markdown document for path: 2 to 6 KB of text
// that depends only on path, so a client can check what it fetched. The
// caller must not modify the returned slice.
func Document(path string) []byte {
	docCache.Lock()
	doc, ok := docCache.m[path]
	docCache.Unlock()
	if ok {
		return doc
	}
	doc = makeDocument(path)
	docCache.Lock()
	if docCache.m == nil {
		docCache.m = map[string][]byte{}
	}
	if len(docCache.m) < maxCachedDocs {
		docCache.m[path] = doc
	}
	docCache.Unlock()
	return doc
}

func makeDocument(path string) []byte {
	h := fnv.New64a()
	_, _ = h.Write([]byte(path))
	seed := h.Sum64()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	size := 2048 + rng.IntN(4096)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", path)
	for section := 1; b.Len() < size; section++ {
		fmt.Fprintf(&b, "## Section %d\n\n", section)
		for line := 0; line < 6 && b.Len() < size; line++ {
			b.WriteString("- ")
			for w := 0; w < 8+rng.IntN(6); w++ {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(docWords[rng.IntN(len(docWords))])
			}
			b.WriteString(".\n")
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
