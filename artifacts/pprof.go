package artifacts

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"
)

// Bounds of the profiles saved beside an artifact and of what is read of
// them.
const (
	// MaxProfileBytes bounds a profile file as saved (gzip'd protobuf):
	// the engine saves no larger reply, and none larger is read.
	MaxProfileBytes = 64 << 20
	// MaxFunctions bounds the functions WhatGotSlower and WhatGrew return.
	MaxFunctions = 20
)

// maxProfileData bounds a profile once decompressed (a variable for the
// tests).
var maxProfileData = 256 << 20

// LoadProfile reads a pprof profile (gzip'd protobuf, as net/http/pprof
// serves it and the engine saves it) from the regular file at path, at
// most MaxProfileBytes of it and maxProfileData once decompressed.
func LoadProfile(path string) (*profile.Profile, error) {
	data, err := readBounded(path, MaxProfileBytes)
	if err != nil {
		return nil, fmt.Errorf("reading profile %s: %w", path, err)
	}
	p, err := ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("reading profile %s: %w", path, err)
	}
	return p, nil
}

// ParseProfile parses a pprof profile, gzip'd or not, refusing one that
// decompresses to more than maxProfileData bytes.
func ParseProfile(data []byte) (*profile.Profile, error) {
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
		data, err = io.ReadAll(io.LimitReader(gz, int64(maxProfileData)+1))
		if err != nil {
			return nil, fmt.Errorf("decompressing: %w", err)
		}
		if len(data) > maxProfileData {
			return nil, fmt.Errorf("larger than %d MiB decompressed", maxProfileData>>20)
		}
	}
	p, err := profile.ParseUncompressed(data)
	if err != nil {
		return nil, fmt.Errorf("not a pprof profile: %w", err)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("malformed profile: %w", err)
	}
	return p, nil
}

// ShortFunction is a function's name without its package's path:
// "github.com/x/y/runners/demo.slowPath" is "demo.slowPath".
func ShortFunction(name string) string {
	head := name
	if i := strings.IndexAny(name, "[("); i >= 0 {
		head = name[:i]
	}
	if i := strings.LastIndexByte(head, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}
