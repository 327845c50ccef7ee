package artifacts

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// frameOf frames a gzip'd payload z as WriteFramed does, each line behind
// prefix.
func frameOf(prefix, group string, z []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s v1 %s %d\n", prefix, frameBegin, group, len(z))
	enc := base64.StdEncoding.EncodeToString(z)
	for len(enc) > 0 {
		n := min(frameLine, len(enc))
		b.WriteString(prefix + enc[:n] + "\n")
		enc = enc[n:]
	}
	sum := sha256.Sum256(z)
	fmt.Fprintf(&b, "%s%s %s\n", prefix, frameEnd, hex.EncodeToString(sum[:]))
	return b.String()
}

// bomb is the gzip of a shard artifact whose steps list repeats item
// until the JSON is about size bytes: a few hundred kilobytes that unpack
// to hundreds of megabytes.
func bomb(t *testing.T, item string, size int) []byte {
	t.Helper()
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	zw.Write([]byte(`{"schema":"` + Schema + `","group":{"id":"g"},"shard":{"index":0,"count":1,"run_id":"r"},"steps":[`))
	chunk := []byte(strings.Repeat(item+",", 64<<10/(len(item)+1)))
	for n := 0; n < size; n += len(chunk) {
		zw.Write(chunk)
	}
	zw.Write([]byte(item + "]}"))
	zw.Close()
	return z.Bytes()
}

// readCost reads the log file path as merge does and returns how long it
// took, how many bytes it allocated and the error.
func readCost(t *testing.T, path string) (time.Duration, uint64, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := LoadShardFiles(path)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return took, after.TotalAlloc - before.TotalAlloc, err
}

// TestHostileLogsAreRefusedCheaply: a framed log of a few hundred
// kilobytes whose artifact unpacks to 200 MB of JSON values (a million
// objects per megabyte), and a log of thousands of frames open at once
// behind distinct prefixes, are refused naming the file, in seconds and
// tens of megabytes, not minutes and gigabytes.
func TestHostileLogsAreRefusedCheaply(t *testing.T) {
	dir := t.TempDir()
	var opens strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&opens, "[pod/p%d/c] %s v1 g 100\n", i, frameBegin)
	}
	for range 100_000 {
		opens.WriteString("[pod/p0/c] QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n")
	}
	cases := []struct {
		name, log, want string
		limit           uint64
	}{
		{"objects.log", frameOf("", "g", bomb(t, "{}", 200<<20)), "more than 2000000 JSON objects and arrays", 64 << 20},
		{"nested.log", frameOf("[pod/x/c] ", "g", bomb(t, strings.Repeat("[", 100), 1<<20)), "nested more than 64 deep", 64 << 20},
		{"steps.log", frameOf("", "g", bomb(t, `{"label":"x"}`, 1<<20)), "steps: more than 1000", 256 << 20},
		{"open.log", opens.String(), "has no end", 256 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, []byte(c.log), 0o644); err != nil {
				t.Fatal(err)
			}
			took, alloc, err := readCost(t, path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%d-byte log: got %v, want %q naming the file", len(c.log), err, c.want)
			}
			t.Logf("%d-byte log: %s, %d MB", len(c.log), took, alloc>>20)
			if took > 20*time.Second || alloc > c.limit {
				t.Errorf("%d-byte log refused after %s and %d MB allocated, want seconds and at most %d MB", len(c.log), took, alloc>>20, c.limit>>20)
			}
		})
	}
}

// TestOnlyRegularFilesAreRead: a device is refused by name, never read
// until the limit.
func TestOnlyRegularFilesAreRead(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip(err)
	}
	_, err := LoadShardFiles(os.DevNull)
	if err == nil || !strings.Contains(err.Error(), os.DevNull+" is a device, not a regular file") {
		t.Errorf("got %v, want %s refused as no regular file", err, os.DevNull)
	}
}
