//go:build !linux

package watch

import (
	"context"
	"errors"
	"os"
	"testing"
)

// TestUnsupported checks that what needs /proc fails with ErrUnsupported,
// not a panic or a misleading "no such file".
func TestUnsupported(t *testing.T) {
	t.Parallel()
	if _, err := SampleProc(os.Getpid()); !errors.Is(err, ErrUnsupported) {
		t.Errorf("SampleProc: %v, want ErrUnsupported", err)
	}
	if _, err := SelfSampler().Sample(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("SelfSampler().Sample: %v, want ErrUnsupported", err)
	}
	if _, err := SampleTree(os.Getpid()); !errors.Is(err, ErrUnsupported) {
		t.Errorf("SampleTree: %v, want ErrUnsupported", err)
	}
	if _, err := SampleCgroup(t.TempDir()); !errors.Is(err, ErrUnsupported) {
		t.Errorf("SampleCgroup: %v, want ErrUnsupported", err)
	}
	if _, err := UDPBufferMax(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("UDPBufferMax: %v, want ErrUnsupported", err)
	}
	_, err := Start(context.Background(), Config{Name: "self", PID: os.Getpid()})
	if !errors.Is(err, ErrUnsupported) {
		t.Errorf("Start attached to a PID: %v, want ErrUnsupported", err)
	}
	t.Log(err)
}
