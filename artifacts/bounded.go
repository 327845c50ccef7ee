package artifacts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Bounds of what a reader of artifacts holds, whatever a file says: an
// artifact or a log is read only from a regular file, and an artifact's
// JSON is refused past these before it is decoded, so that a small file
// (or a gzip'd frame of a few kilobytes) that would decode into millions
// of values costs neither the memory nor the minutes.
const (
	// MaxArtifactSteps bounds an artifact's steps: a plan's sweep makes at
	// most 1,000.
	MaxArtifactSteps = 1_000
	// MaxJSONContainers bounds the objects and arrays of an artifact's
	// JSON: 1,000 steps of 1,000-point series hold about a million.
	MaxJSONContainers = 2_000_000
	// maxJSONDepth bounds how deep they nest (an artifact nests fewer
	// than 16 deep).
	maxJSONDepth = 64
	// MaxShards bounds the shards of a distributed run.
	MaxShards = 10_000
)

// jsonShape is an io.Writer that follows the JSON written to it and fails
// once it nests deeper than maxJSONDepth or opens more than
// MaxJSONContainers objects and arrays.
type jsonShape struct {
	depth, containers int
	inString, escaped bool
}

func (s *jsonShape) Write(p []byte) (int, error) {
	for _, c := range p {
		switch {
		case s.inString:
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
			s.containers++
			if s.depth > maxJSONDepth {
				return 0, fmt.Errorf("JSON nested more than %d deep: not an artifact benchtui wrote", maxJSONDepth)
			}
			if s.containers > MaxJSONContainers {
				return 0, fmt.Errorf("more than %d JSON objects and arrays: not an artifact benchtui wrote", MaxJSONContainers)
			}
		case c == '}' || c == ']':
			s.depth--
		}
	}
	return len(p), nil
}

// checkShape reports whether data, a JSON document, is within the bounds
// of jsonShape.
func checkShape(data []byte) error {
	_, err := (&jsonShape{}).Write(data)
	return err
}

// decodeArtifact decodes an artifact's JSON, its steps one at a time: a
// document of more than MaxArtifactSteps steps is refused before they
// are all held.
func decodeArtifact(data []byte) (*Artifact, error) {
	var doc struct {
		Artifact
		Steps json.RawMessage `json:"steps"` // shadows Artifact.Steps
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	a := doc.Artifact
	steps, err := decodeSteps(doc.Steps)
	a.Steps = steps
	return &a, err
}

// decodeSteps decodes a JSON list of steps, at most MaxArtifactSteps.
func decodeSteps(raw json.RawMessage) ([]Step, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("steps: want a list")
	}
	steps := []Step{}
	for dec.More() {
		if len(steps) == MaxArtifactSteps {
			return nil, fmt.Errorf("steps: more than %d: not an artifact benchtui wrote", MaxArtifactSteps)
		}
		var s Step
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("steps[%d]: %w", len(steps), err)
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// readAllShaped reads r to its end, at most limit bytes of JSON within
// the bounds of jsonShape, failing as soon as it is past one.
func readAllShaped(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.TeeReader(io.LimitReader(r, limit+1), &jsonShape{}))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MiB unpacked", limit>>20)
	}
	return data, nil
}
