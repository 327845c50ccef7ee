package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// MaxProfileBytes bounds a saved heap profile: a larger reply is not saved.
const MaxProfileBytes = 64 << 20

// saveProfile fetches the target's heap profile and saves it beside the
// artifact as <group>-<run id>-step<N>-run<R>-heap-<moment>.pb.gz (with
// -<target> before -heap for a target after the group's first), its name
// kept in the step's profiles as heap_<moment> (TARGET/heap_<moment>). A
// failure is a note of the step, never its end.
func (st *stepRun) saveProfile(ctx context.Context, t serverTarget, moment string) {
	p := t.spec.Pprof
	dir := ""
	if st.s.opts.Env != nil {
		dir = st.s.opts.Env.ArtifactsDir
	}
	if dir == "" {
		st.event(artifacts.EventNote, "pprof: no artifacts folder to save the "+moment+" profile in")
		return
	}
	body, err := fetchProfile(ctx, p)
	if err != nil {
		st.event(artifacts.EventNote, fmt.Sprintf("pprof %s of %s: %s", moment, t.name, plan.RedactURLs(err.Error())))
		return
	}
	of := ""
	if t.index > 0 {
		of = "-" + t.name
	}
	name := fmt.Sprintf("%s-%s-step%d-run%d%s-heap-%s.pb.gz", st.s.group.ID, st.s.opts.RunID, st.index+1, st.run1, of, moment)
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}
	if err != nil {
		st.event(artifacts.EventNote, fmt.Sprintf("pprof %s: saving: %v", moment, err))
		return
	}
	st.server.mu.Lock()
	defer st.server.mu.Unlock()
	if st.server.profiles == nil {
		st.server.profiles = map[string]string{}
	}
	st.server.profiles[t.figure("heap_"+moment)] = name
}

// fetchProfile GETs a profile, bounded in time and size; it must be
// gzip'd (the protobuf form pprof serves without ?debug=).
func fetchProfile(ctx context.Context, p *plan.TargetPprof) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, p.PprofTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", p.URL, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p.URL, err)
	}
	switch {
	case len(body) > MaxProfileBytes:
		return nil, fmt.Errorf("%s: profile larger than %d MiB", p.URL, MaxProfileBytes>>20)
	case !bytes.HasPrefix(body, []byte{0x1f, 0x8b}):
		return nil, fmt.Errorf("%s: not a gzip'd profile (ask for the protobuf form, without ?debug=)", p.URL)
	}
	return body, nil
}
