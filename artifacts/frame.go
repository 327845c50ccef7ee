package artifacts

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// A framed artifact is an artifact written into a log: a shard of a
// distributed run prints its artifacts on stdout this way when it ends,
// so that `kubectl logs` carries them and nothing else has to be fetched
// from the pod. The frame is
//
//	benchtui-artifact-begin v1 GROUP BYTES
//	base64 of the gzip'd JSON, 76 characters a line
//	benchtui-artifact-end SHA256
//
// where BYTES is the gzip'd size and SHA256 its hex digest. A reader finds
// frames anywhere in a log, each line possibly behind a prefix (kubectl
// logs --prefix writes "[pod/NAME/CONTAINER] "), frames of several pods
// interleaved line by line, and checks each frame's size and digest.
const (
	// maxLogLine bounds a line read from a log: a frame's lines are
	// short; a longer line (another stream's) is skipped unread.
	maxLogLine = 1 << 20
	frameBegin = "benchtui-artifact-begin"
	frameEnd   = "benchtui-artifact-end"
	frameLine  = 76
)

// WriteFramed writes a as one frame, its NaN and Inf figures written as 0
// with a note (SanitizeFloats).
func WriteFramed(w io.Writer, a *Artifact) error {
	SanitizeFloats(a)
	data, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("encoding artifact for %s: %w", a.Group.ID, err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		return err
	}
	sum := sha256.Sum256(z.Bytes())
	enc := base64.StdEncoding.EncodeToString(z.Bytes())
	var out bytes.Buffer // one write: the frame's lines stay together
	fmt.Fprintf(&out, "%s v1 %s %d\n", frameBegin, a.Group.ID, z.Len())
	for len(enc) > 0 {
		n := min(frameLine, len(enc))
		out.WriteString(enc[:n] + "\n")
		enc = enc[n:]
	}
	fmt.Fprintf(&out, "%s %s\n", frameEnd, hex.EncodeToString(sum[:]))
	_, err = w.Write(out.Bytes())
	return err
}

// frame is one frame being read, behind its line prefix.
type frame struct {
	group string
	size  int
	body  strings.Builder
}

// ReadFramed returns every artifact framed in r, in the order their
// frames end, bounded by MaxArtifactBytes each. A frame cut short (its
// end missing), of the wrong size or digest, or holding no valid artifact
// is an error naming it; lines outside frames are ignored.
func ReadFramed(r io.Reader, name string) ([]*Artifact, error) {
	fr := &frameReader{name: name, open: map[string]*frame{}}
	br := bufio.NewReaderSize(r, maxLogLine)
	for n := 1; ; n++ {
		b, _, err := ReadLine(br) // a longer line (nil) is none of a frame's
		if len(b) > 0 {
			if err := fr.take(n, strings.TrimRight(string(b), "\r\n")); err != nil {
				return nil, err
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
	for prefix, f := range fr.open {
		return nil, fmt.Errorf("%s: framed artifact of %s%s has no end (the log was cut short)", name, f.group, prefixNote(prefix))
	}
	return fr.out, nil
}

// frameReader holds the frames of a log being read: those open, by line
// prefix, and the artifacts of those ended.
type frameReader struct {
	name string
	open map[string]*frame
	out  []*Artifact
}

// take reads line n of the log.
func (fr *frameReader) take(n int, line string) error {
	if i := strings.Index(line, frameBegin+" "); i >= 0 {
		f, err := beginFrame(line[i+len(frameBegin)+1:])
		if err != nil {
			return fmt.Errorf("%s:%d: %w", fr.name, n, err)
		}
		if prev := fr.open[line[:i]]; prev != nil {
			return fmt.Errorf("%s:%d: framed artifact of %s has no end before the next frame (the log was cut)", fr.name, n, prev.group)
		}
		fr.open[line[:i]] = f
		return nil
	}
	if i := strings.Index(line, frameEnd+" "); i >= 0 {
		f := fr.open[line[:i]]
		if f == nil {
			return nil
		}
		delete(fr.open, line[:i])
		a, err := f.artifact(strings.TrimSpace(line[i+len(frameEnd)+1:]))
		if err != nil {
			return fmt.Errorf("%s:%d: framed artifact of %s: %w", fr.name, n, f.group, err)
		}
		fr.out = append(fr.out, a)
		return nil
	}
	prefix, rest := bodyLine(line)
	f := fr.open[prefix]
	if f == nil || rest == "" {
		return nil
	}
	if f.body.Len()+len(rest) > base64.StdEncoding.EncodedLen(MaxArtifactBytes) {
		return fmt.Errorf("%s:%d: framed artifact of %s: larger than %d MiB", fr.name, n, f.group, MaxArtifactBytes>>20)
	}
	f.body.WriteString(rest)
	return nil
}

// beginFrame parses the rest of a begin line: "v1 GROUP BYTES".
func beginFrame(s string) (*frame, error) {
	var f frame
	var version string
	if _, err := fmt.Sscanf(s, "%s %s %d", &version, &f.group, &f.size); err != nil || version != "v1" || f.size <= 0 || f.size > MaxArtifactBytes {
		return nil, fmt.Errorf("bad frame start %q: want %s v1 GROUP BYTES", s, frameBegin)
	}
	return &f, nil
}

// bodyLine cuts a line into the prefix a frame's body line would have
// and its base64 text: the text is the base64 run that ends the line
// (spaces after it aside), the prefix all before it. Finding the frame is
// then one lookup, however many frames are open: a log cannot make the
// reader compare each line with each of thousands of prefixes.
func bodyLine(line string) (prefix, text string) {
	line = strings.TrimRight(line, " \t")
	i := len(line)
	for i > 0 && isBase64Char(line[i-1]) {
		i--
	}
	return line[:i], line[i:]
}

// isBase64Char reports whether c is a character of standard base64: a
// line of another stream (stderr, interleaved by the container's log)
// inside a frame ends otherwise, or has another prefix.
func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}

// artifact decodes and checks the frame's body against its size and sum.
func (f *frame) artifact(sum string) (*Artifact, error) {
	z, err := base64.StdEncoding.DecodeString(f.body.String())
	if err != nil {
		return nil, fmt.Errorf("base64: %w", err)
	}
	got := sha256.Sum256(z)
	if len(z) != f.size || hex.EncodeToString(got[:]) != sum {
		return nil, fmt.Errorf("%d bytes with digest %x, the frame says %d bytes, %s: damaged or cut", len(z), got[:4], f.size, sum)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	data, err := readAllShaped(zr, MaxArtifactBytes) // a gzip bomb stops at its first bound
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

func prefixNote(prefix string) string {
	if prefix == "" {
		return ""
	}
	return " (lines " + strings.TrimSpace(prefix) + ")"
}
