// Package grpcload is benchtui's gRPC runner (`runner: grpc`): unary and
// streaming calls (server, client and bidirectional) of any method, their
// messages written as JSON templates and sent as dynamic protobuf
// messages, on google.golang.org/grpc.
//
// A method's descriptor comes from a .proto file, parsed with
// github.com/bufbuild/protocompile (imports found on import_paths,
// relative to the plan file's folder), or, without one, from the
// server's reflection service (grpc.reflection.v1). A request is rendered
// from its template, read as JSON into its input message (protojson) and
// encoded once; a message without templates is encoded once for the run.
// A reply is decoded (and turned into JSON) only when a flow's captures
// read it.
//
// Calls go over `connections` shared client connections (ghz's
// --connections; 1 by default), each worker on one of them, or one
// connection per worker (per_worker). Plaintext unless tls: is given (a
// CA file, or insecure_skip_verify). A call's deadline is load.timeout
// (10 s when unset); a status other than OK is an error of its kind,
// grpc_ and the code's name (grpc_unavailable, grpc_not_found); a reply
// larger than max_recv_bytes is refused unread (reply_too_large).
package grpcload

import (
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
)

// Section is the plan key of the gRPC section.
const Section = "grpc"

// PerWorker is the `connections:` value that gives each worker a
// connection of its own.
const PerWorker = "per_worker"

// Limits of the section.
const (
	// DefaultMaxRecvBytes is the largest reply message taken when the
	// section does not say (grpc-go's own default).
	DefaultMaxRecvBytes = 4 << 20
	// MaxConnections bounds a pool of shared connections.
	MaxConnections = 1024
	// MaxStreamMessages bounds the messages sent or awaited on one stream.
	MaxStreamMessages = 1_000_000
)

// Counters of streaming calls: the messages sent and received.
const (
	CounterSent     = "messages_sent"
	CounterReceived = "messages_received"
)

// Spec is the `grpc:` section of a group.
type Spec struct {
	// Target is the server's host:port.
	Target string `yaml:"target,required"`
	// Proto is the .proto file declaring the methods, relative to the
	// plan file's folder; empty asks the server's reflection service.
	Proto string `yaml:"proto"`
	// ImportPaths are where Proto's imports are looked for, relative to
	// the plan file's folder (the folder itself when none).
	ImportPaths []string `yaml:"import_paths"`
	// Connections is how many client connections the workers share, each
	// worker on one ("1" when empty), or per_worker.
	Connections string `yaml:"connections"`
	// TLS, when set, makes the connections TLS; plaintext otherwise.
	TLS *TLS `yaml:"tls"`
	// MaxRecvBytes bounds a reply message (DefaultMaxRecvBytes when 0).
	MaxRecvBytes int `yaml:"max_recv_bytes"`
	// Metadata is sent with every call (values are templates); a call's
	// own metadata adds to it.
	Metadata map[string]string `yaml:"metadata"`
	// Method and Message are a single call, the shorthand for calls: with
	// one entry.
	Method  string `yaml:"method"`
	Message string `yaml:"message"`
	// Messages, Await and ExpectCodes are the single call's (Call).
	Messages    int      `yaml:"messages"`
	Await       int      `yaml:"await"`
	ExpectCodes []string `yaml:"expect_codes"`
	// Calls are a weighted mix of calls.
	Calls []Call `yaml:"calls"`
	// Flow, instead, is a sequence each worker (a virtual user) runs in
	// order per iteration, capturing values from replies.
	Flow []Call `yaml:"flow"`
}

// TLS is the `tls:` part: how the server's certificate is checked.
type TLS struct {
	// CAFile is a PEM file of the CAs to trust (relative to the plan
	// file's folder); the system's when empty.
	CAFile string `yaml:"ca_file"`
	// ServerName is the name checked against the certificate (the
	// target's host when empty).
	ServerName string `yaml:"server_name"`
	// InsecureSkipVerify accepts any certificate.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
}

// Call is one call of a mix, or one step of a flow.
type Call struct {
	Name string `yaml:"name"`
	// Method is package.Service/Method (a leading / is allowed).
	Method string `yaml:"method,required"`
	// Message is the request as JSON (protojson), a template; empty is
	// the empty message.
	Message string `yaml:"message"`
	// Messages is how many requests a client or bidi stream sends, each
	// rendered afresh (1 when 0).
	Messages int `yaml:"messages"`
	// Await is how many replies a server or bidi stream waits for before
	// it ends the call; 0 waits for the stream's end.
	Await int `yaml:"await"`
	// Metadata adds to the section's for this call.
	Metadata map[string]string `yaml:"metadata"`
	// ExpectCodes are the status codes that make the call a success
	// (NOT_FOUND, or its number); OK alone when empty, OK only if listed
	// when not.
	ExpectCodes []string `yaml:"expect_codes"`
	// Weight is the call's share of the mix; 0 means 1.
	Weight int `yaml:"weight"`
	// Capture, Once and Think are for flow steps (package flow): a
	// capture reads the reply (the last one of a stream) as JSON.
	Capture map[string]flow.Capture `yaml:"capture"`
	Once    bool                    `yaml:"once"`
	Think   plan.Duration           `yaml:"think"`
}

// Kind is `runner: grpc`: calls through grpc-go driven by the engine's
// loops.
func Kind() runners.Kind {
	return runners.Kind{
		Name: "grpc", Sections: map[string]func() any{Section: func() any { return &Spec{} }},
		Validate: validate, New: newKind, Counters: counterNames,
	}
}

func specOf(g *plan.Group) *Spec { return plan.Section[Spec](g, Section) }

// counterNames are the stream counters of a group with streaming calls.
// Which calls stream is known only from their descriptors: every group
// has them, at 0 for unary calls.
func counterNames(g *plan.Group) []string {
	if specOf(g) == nil {
		return nil
	}
	return []string{CounterReceived, CounterSent}
}

// sent is what the section sends, a mix or a flow, and its plan key.
func (s *Spec) sent() ([]Call, string) {
	switch {
	case len(s.Flow) > 0:
		return s.Flow, "flow"
	case s.Method != "":
		return []Call{{Method: s.Method, Message: s.Message, Messages: s.Messages, Await: s.Await, ExpectCodes: s.ExpectCodes}}, "method"
	}
	return s.Calls, "calls"
}

func validate(g *plan.Group) []error {
	s := specOf(g)
	if s == nil {
		return []error{plan.Errorf(g.Pos, "group "+g.ID+": grpc", "missing (required for runner grpc)")}
	}
	pos, key := g.SectionPos[Section], "group "+g.ID+": grpc"
	errs := g.LoopProblems()
	for _, p := range s.problems() {
		errs = append(errs, plan.Errorf(pos, key+"."+p.Key, "%s", p.Msg))
	}
	return append(errs, s.templateProblems(g, pos, key)...)
}

// problems are what is wrong with the section by itself, each naming its
// field under the section.
func (s *Spec) problems() []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	if !validTarget(s.Target) {
		bad("target", "want host:port, got %q", s.Target)
	}
	if _, err := s.connections(); err != nil {
		bad("connections", "%v", err)
	}
	if s.MaxRecvBytes < 0 {
		bad("max_recv_bytes", "must not be negative")
	}
	if s.TLS != nil && s.TLS.CAFile != "" && s.TLS.InsecureSkipVerify {
		bad("tls.ca_file", "want ca_file or insecure_skip_verify, not both")
	}
	if s.Proto == "" && len(s.ImportPaths) > 0 {
		bad("import_paths", "are for a proto file's imports: give proto")
	}
	out = append(out, metadataProblems("metadata", s.Metadata)...)
	return append(out, s.shapeProblems()...)
}

// validTarget reports whether t is host:port, a port of 1 to 65535.
func validTarget(t string) bool {
	host, port, err := net.SplitHostPort(t)
	if err != nil || host == "" {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n < 1<<16
}

// connections is how many shared connections the section asks for, 0 for
// one per worker.
func (s *Spec) connections() (int, error) {
	switch s.Connections {
	case "":
		return 1, nil
	case PerWorker:
		return 0, nil
	}
	n, err := strconv.Atoi(s.Connections)
	if err != nil || n < 1 || n > MaxConnections {
		return 0, fmt.Errorf("want 1 to %d shared connections or %s, got %q", MaxConnections, PerWorker, s.Connections)
	}
	return n, nil
}

// shapeProblems checks what the section sends: exactly one of method,
// calls and flow, and each call.
func (s *Spec) shapeProblems() []flow.Problem {
	set := 0
	for _, on := range []bool{s.Method != "", len(s.Calls) > 0, len(s.Flow) > 0} {
		if on {
			set++
		}
	}
	if set != 1 {
		return []flow.Problem{{Key: "method", Msg: "want exactly one of method, calls and flow"}}
	}
	var out []flow.Problem
	if s.Method == "" && (s.Message != "" || s.Messages != 0 || s.Await != 0 || len(s.ExpectCodes) > 0) {
		out = append(out, flow.Problem{Key: "message", Msg: "message, messages, await and expect_codes go with method; give them in each of calls or flow"})
	}
	calls, list := s.sent()
	if list == "flow" {
		_, problems := flow.Compile(flowDefs(calls), nil)
		out = append(out, problems...)
	}
	for i, c := range calls {
		for _, p := range c.problems(list) {
			k := p.Key
			if list != "method" {
				k = fmt.Sprintf("%s[%d].%s", list, i, p.Key)
			}
			out = append(out, flow.Problem{Key: k, Msg: p.Msg})
		}
	}
	return out
}

// methodName is package.Service/Method.
var methodName = regexp.MustCompile(`^/?([A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*/[A-Za-z_][A-Za-z0-9_]*$`)

func (c *Call) problems(list string) []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	if !methodName.MatchString(c.Method) {
		bad("method", "want package.Service/Method, got %q", c.Method)
	}
	if c.Messages < 0 || c.Messages > MaxStreamMessages {
		bad("messages", "want 0 to %d, got %d", MaxStreamMessages, c.Messages)
	}
	if c.Await < 0 || c.Await > MaxStreamMessages {
		bad("await", "want 0 to %d, got %d", MaxStreamMessages, c.Await)
	}
	if c.Weight < 0 {
		bad("weight", "must not be negative")
	}
	if _, err := parseCodes(c.ExpectCodes); err != nil {
		bad("expect_codes", "%v", err)
	}
	if list == "flow" && c.Weight != 0 {
		bad("weight", "a flow's steps run in order, each once per iteration; weight is for calls")
	}
	if list != "flow" {
		for field, on := range map[string]bool{"capture": len(c.Capture) > 0, "once": c.Once, "think": c.Think.D() != 0} {
			if on {
				bad(field, "is for the steps of a flow (grpc.flow)")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Capture)) {
		if c.Capture[name].Header != "" || c.Capture[name].Column != "" {
			bad("capture."+name, "a gRPC reply is read as JSON: capture it with json or regex")
		}
	}
	return append(out, metadataProblems("metadata", c.Metadata)...)
}

// parseCodes reads status codes by name (NOT_FOUND) or number; nil for
// none.
func parseCodes(names []string) ([]codes.Code, error) {
	var out []codes.Code
	for _, n := range names {
		text := strconv.Quote(strings.ToUpper(n)) // codes reads "NOT_FOUND" or 5
		if _, err := strconv.Atoi(n); err == nil {
			text = n
		}
		var c codes.Code
		if err := c.UnmarshalJSON([]byte(text)); err != nil {
			return nil, fmt.Errorf("want gRPC status codes by name (NOT_FOUND) or number (0 to 16), got %q", n)
		}
		out = append(out, c)
	}
	return out, nil
}

// metadataKey is a gRPC metadata key as HTTP/2 carries it: lower case.
var metadataKey = regexp.MustCompile(`^[0-9a-z_.-]{1,128}$`)

func metadataProblems(key string, md map[string]string) []flow.Problem {
	var out []flow.Problem
	for _, k := range slices.Sorted(maps.Keys(md)) {
		switch {
		case !metadataKey.MatchString(k):
			out = append(out, flow.Problem{Key: key + "." + k, Msg: "want a lower-case key of letters, digits, _, . and -"})
		case strings.HasPrefix(k, "grpc-"), strings.HasSuffix(k, "-bin"):
			out = append(out, flow.Problem{Key: key + "." + k, Msg: "grpc- keys are gRPC's own and -bin values binary: give a text key"})
		}
	}
	return out
}

// flowDefs are the flow parts of calls.
func flowDefs(calls []Call) []flow.Def {
	defs := make([]flow.Def, len(calls))
	for i, c := range calls {
		defs[i] = flow.Def{Name: c.Name, Once: c.Once, Think: c.Think.D(), Capture: c.Capture}
	}
	return defs
}

// templateProblems compiles every templated field of the section's calls,
// each with the variables its place in a flow gives it.
func (s *Spec) templateProblems(g *plan.Group, pos plan.Pos, key string) []error {
	calls, list := s.sent()
	f := flow.Compiled(flowDefs(s.Flow), nil)
	var errs []error
	for i, c := range calls {
		ck := fmt.Sprintf("%s.%s[%d]", key, list, i)
		if list == "method" {
			ck = key
		}
		errs = append(errs, g.TemplatesVars(pos, c.fields(ck, s.Metadata), f.VarsBefore(i))...)
	}
	return errs
}

// fields are a call's templated fields by their plan key: its message
// and its metadata with the section's.
func (c *Call) fields(key string, common map[string]string) map[string]string {
	out := map[string]string{key + ".message": c.Message}
	for k, v := range common {
		out["grpc.metadata."+k] = v
	}
	for k, v := range c.Metadata {
		out[key+".metadata."+k] = v
	}
	return out
}
