package plan

import (
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Redacted replaces a secret wherever benchtui shows or stores one.
const Redacted = "[redacted]"

// MinSearchedSecret is the shortest secret a plan may hold (a shorter one
// is a plan error). The plan's own values are redacted where secrets were
// substituted; text from elsewhere (a server's error echoing a password, a
// command's output) can only be searched, and searching for "1" would
// mangle every number.
const MinSearchedSecret = 4

// Redact makes free text s (an error, a server's message) fit to show and
// store: it removes every secret the plan knows of at least
// MinSearchedSecret bytes (expanded ${…} values named like secrets) and
// the password of any URL or DSN, and escapes control characters but the
// newlines between lines.
func (p *Plan) Redact(s string) string {
	if p != nil {
		for _, sec := range p.Secrets {
			if len(sec) >= MinSearchedSecret {
				s = strings.ReplaceAll(s, sec, Redacted)
			}
		}
	}
	lines := strings.Split(RedactURLs(s), "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}

var urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\s]*):([^@/\s]+)@`)
var kvPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('[^']*'|\S+)`)

// RedactURLs hides the password part of URLs ("scheme://user:pass@host")
// and of key=value DSNs ("password=…") in s.
func RedactURLs(s string) string {
	s = urlPassword.ReplaceAllString(s, "${1}:"+Redacted+"@")
	return kvPassword.ReplaceAllString(s, "${1}"+Redacted)
}

// redactedTree renders a YAML node as plain values for an artifact's group
// config: the values of secret-named keys (authorization, cookie,
// password, token, …) are replaced, a scalar that received a secret
// ${VAR} is shown as in shown, and URL passwords are hidden.
func redactedTree(n *yaml.Node, shown map[*yaml.Node]string) any {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if SecretName(k) && n.Content[i+1].Kind == yaml.ScalarNode {
				m[k] = Redacted
				continue
			}
			m[k] = redactedTree(n.Content[i+1], shown)
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = redactedTree(c, shown)
		}
		return l
	}
	if s, ok := shown[n]; ok {
		return RedactURLs(s)
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return RedactURLs(n.Value)
	}
	if s, ok := v.(string); ok {
		return RedactURLs(s)
	}
	return v
}
