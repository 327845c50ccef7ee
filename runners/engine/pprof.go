package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/benchtui/benchtui/artifacts"
	"github.com/benchtui/benchtui/runners/plan"
)

// MaxProfileBytes bounds a saved profile: a larger reply is not saved.
const MaxProfileBytes = artifacts.MaxProfileBytes

// errWindowCut cancels a CPU profile whose measured window closed before
// the seconds it asked for.
var errWindowCut = errors.New("window cut")

// saveProfile fetches the target's heap profile and saves it beside the
// artifact as <group>-<run id>-step<N>-run<R>-heap-<moment>.pb.gz (with
// -<target> before -heap for a target after the group's first), its name
// kept in the step's profiles as heap_<moment> (TARGET/heap_<moment>). A
// failure is a note of the step, never its end.
func (st *stepRun) saveProfile(ctx context.Context, t serverTarget, moment string) {
	p, what := t.spec.Pprof, "pprof "+moment+" of "+t.name
	if st.artifactsDir() == "" {
		st.event(artifacts.EventNote, what+": no artifacts folder to save it in")
		return
	}
	body, err := fetchProfile(ctx, p.URL, p.PprofTimeout())
	st.keepProfile(t, "heap-"+moment, "heap_"+moment, what, body, err)
}

// startCPUProfile asks the target for a CPU profile of the measured
// window when it opens (the server answers when its seconds are up), in
// the background; stopServer cancels it when the window closes early.
// The profile is saved as …-cpu.pb.gz, its name in profiles as cpu
// (TARGET/cpu).
func (st *stepRun) startCPUProfile(ctx context.Context, t serverTarget) {
	what := "cpu profile of " + t.name
	if st.spec.Duration <= 0 {
		st.event(artifacts.EventNote, what+": the step has no planned duration to profile")
		return
	}
	if st.artifactsDir() == "" {
		st.event(artifacts.EventNote, what+": no artifacts folder to save it in")
		return
	}
	url, _ := t.spec.Pprof.CPUURL(st.spec.Duration) // validated with the plan
	seconds := time.Duration(plan.CPUProfileSeconds(st.spec.Duration)) * time.Second
	ctx, cancel := context.WithCancelCause(ctx)
	st.server.mu.Lock()
	st.server.cpuCancel = append(st.server.cpuCancel, cancel)
	st.server.mu.Unlock()
	st.server.fetching.Go(func() {
		defer cancel(nil)
		body, err := fetchProfile(ctx, url, seconds+t.spec.Pprof.PprofTimeout())
		if errors.Is(context.Cause(ctx), errWindowCut) {
			err = fmt.Errorf("the measured window closed before the %s profiled: not saved", seconds)
		}
		st.keepProfile(t, "cpu", "cpu", what, body, err)
	})
}

// keepProfile saves a fetched profile beside the artifact as
// <group>-<run id>-step<N>-run<R>[-<target>]-<suffix>.pb.gz and keeps its
// name in the step's profiles as key (TARGET/key for a target after the
// group's first); a fetch's error is a note saying what failed.
func (st *stepRun) keepProfile(t serverTarget, suffix, key, what string, body []byte, err error) {
	if err != nil {
		st.event(artifacts.EventNote, fmt.Sprintf("%s: %s", what, plan.RedactURLs(err.Error())))
		return
	}
	of := ""
	if t.index > 0 {
		of = "-" + t.name
	}
	name := fmt.Sprintf("%s-%s-step%d-run%d%s-%s.pb.gz", st.s.group.ID, st.s.opts.RunID, st.index+1, st.run1, of, suffix)
	dir := st.artifactsDir()
	err = os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}
	if err != nil {
		st.event(artifacts.EventNote, fmt.Sprintf("%s: saving: %v", what, err))
		return
	}
	st.server.mu.Lock()
	defer st.server.mu.Unlock()
	if st.server.profiles == nil {
		st.server.profiles = map[string]string{}
	}
	st.server.profiles[t.figure(key)] = name
}

// artifactsDir is where the step's files are saved, "" when nowhere.
func (st *stepRun) artifactsDir() string {
	if st.s.opts.Env == nil {
		return ""
	}
	return st.s.opts.Env.ArtifactsDir
}

// fetchProfile GETs a profile, bounded in time and size; it must be
// gzip'd (the protobuf form pprof serves without ?debug=).
func fetchProfile(ctx context.Context, url string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	switch {
	case len(body) > MaxProfileBytes:
		return nil, fmt.Errorf("%s: profile larger than %d MiB", url, MaxProfileBytes>>20)
	case !bytes.HasPrefix(body, []byte{0x1f, 0x8b}):
		return nil, fmt.Errorf("%s: not a gzip'd profile (ask for the protobuf form, without ?debug=)", url)
	}
	return body, nil
}
