package artifacts

import (
	"encoding/json"
	"io"
)

// EncodeJSON writes v to w as JSON indented by two spaces, followed by a
// newline, with <, > and & as they are: encoding/json escapes them
// (\u003c …) by default for JSON embedded in HTML, which the artifacts and
// benchtui's JSON outputs are not, so a check "p99 <= 50ms" reads as
// written in an editor, in jq and in a diff.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
