package artifacts

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestParseProfileBounds: a gzip'd profile round-trips, text is refused,
// and a profile decompressing past the bound is refused without being
// held whole.
func TestParseProfileBounds(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{{Value: []int64{1}}}}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	if p, err := ParseProfile(b.Bytes()); err != nil || len(p.Sample) != 1 {
		t.Errorf("round trip: %v", err)
	}
	if _, err := ParseProfile([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n")); err == nil {
		t.Error("the text form parsed")
	}
	defer func(was int) { maxProfileData = was }(maxProfileData)
	maxProfileData = 1 << 20
	var bomb bytes.Buffer
	gz := gzip.NewWriter(&bomb)
	gz.Write(make([]byte, maxProfileData+1))
	gz.Close()
	if _, err := ParseProfile(bomb.Bytes()); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB decompressed") {
		t.Errorf("a bomb past the bound: %v", err)
	}
}
