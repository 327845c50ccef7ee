// Package wsload is benchtui's WebSocket runner (`runner: websocket`):
// workers that each hold a connection and send a weighted mix of text or
// binary messages (or a flow of them, with captures), each awaiting a
// reply that matches a pattern or a count of messages; or subscribers
// held for the step (floods, ramps, reconnect storms with full jitter)
// that count the messages a server broadcasts.
//
// The client is github.com/coder/websocket: a small maintained library
// with a context on every read and write, read limits per message and
// close codes as errors. Each connection is dialled through runners.Dial
// (the process's dialling turns). A message larger than
// max_message_bytes closes its connection (message_too_large) before it
// is read whole; a server's close frame is an error named by its code
// (close_1011).
package wsload

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/flow"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/sse"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// Section is the plan key of the WebSocket section.
const Section = "websocket"

// Limits of the section.
const (
	// DefaultMaxMessageBytes is the largest message read when the
	// section does not say.
	DefaultMaxMessageBytes = 1 << 20
	// MaxAwaitCount bounds await.count.
	MaxAwaitCount = 1 << 20
	// maxSubprotocols bounds subprotocols.
	maxSubprotocols = 64
)

// Counters of a websocket group.
const (
	CounterMessagesIn  = "messages_in"
	CounterMessagesOut = "messages_out"
	CounterBytesIn     = "bytes_in"
	CounterBytesOut    = "bytes_out"
	// CounterConnects counts the handshakes that succeeded.
	CounterConnects = "connects"
	// CounterDisconnects counts subscribers' connections that ended while
	// the step ran; CounterReconnects those opened again after one.
	CounterDisconnects = "disconnects"
	CounterReconnects  = "reconnects"
)

// Extra timings.
const (
	// ExtraConnect is a connection's handshake, from dial to upgrade.
	ExtraConnect = "connect"
	// ExtraBackoff is a subscriber's wait before a reconnect.
	ExtraBackoff = "backoff"
)

// Spec is the `websocket:` section of a group.
type Spec struct {
	// URL is the ws:// or wss:// URL (http:// and https:// are read as
	// ws:// and wss://); its path and query may hold templates.
	URL string `yaml:"url,required"`
	// Headers are sent with the handshake; values may hold templates
	// (Authorization and Cookie are secrets, never shown).
	Headers map[string]string `yaml:"headers"`
	// Subprotocols are offered in Sec-WebSocket-Protocol.
	Subprotocols []string `yaml:"subprotocols"`
	// MaxMessageBytes bounds one received message
	// (DefaultMaxMessageBytes when 0).
	MaxMessageBytes int64 `yaml:"max_message_bytes"`
	// InsecureSkipVerify skips TLS verification for wss URLs.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
	// Sources are the local addresses the connections are opened from,
	// as sse.sources: connection i (worker or subscriber i) from address
	// i mod their count.
	Sources []string `yaml:"sources"`
	// Messages are the weighted mix of operations.
	Messages []Message `yaml:"messages"`
	// Flow, instead of Messages, is a sequence each worker runs in order
	// per iteration, capturing values from replies.
	Flow []Message `yaml:"flow"`
	// Subscribe, instead of both, holds subscribers that count messages.
	Subscribe *Subscribe `yaml:"subscribe"`
}

// Message is one operation: a message sent and the reply awaited.
type Message struct {
	Name string `yaml:"name"`
	// Text or Binary is the message (a template), sent as a text or a
	// binary frame.
	Text   string `yaml:"text"`
	Binary string `yaml:"binary"`
	// Weight is the message's share of the mix; 0 means 1.
	Weight int `yaml:"weight"`
	// Await is the reply awaited; nil awaits one message, whatever it is.
	Await *Await `yaml:"await"`
	// NoReply sends the message and awaits nothing.
	NoReply bool `yaml:"no_reply"`
	// Capture, Once and Think are for flow steps (package flow): a
	// capture reads the awaited reply's text.
	Capture map[string]flow.Capture `yaml:"capture"`
	Once    bool                    `yaml:"once"`
	Think   plan.Duration           `yaml:"think"`
}

// Await is what ends an operation: Count messages (1 when 0) that match
// Match (any message when empty); messages before them that do not match
// are read and counted, not awaited.
type Await struct {
	Match string `yaml:"match"`
	Count int    `yaml:"count"`
}

// Subscribe is the `subscribe:` part: subscribers held for the step.
type Subscribe struct {
	// Subscribers is how many to hold; 0 means the load's concurrency
	// (a `subscribers` sweep value wins over both).
	Subscribers int `yaml:"subscribers"`
	// Ramp starts subscribers in batches, "100/5s"; empty starts all.
	Ramp string `yaml:"ramp"`
	// Reconnect opens a lost connection again after a full-jitter backoff.
	Reconnect bool `yaml:"reconnect"`
	// Send are text messages (templates) each subscriber sends once
	// connected, at every connect (a subscription request).
	Send []string `yaml:"send"`
}

// Kind is `runner: websocket`: workers driven by the engine's loops, or
// subscribers the runner holds itself.
func Kind() runners.Kind {
	return runners.Kind{
		Name: "websocket", Sections: map[string]func() any{Section: func() any { return &Spec{} }},
		Validate: validate, New: newKind,
		Params: []string{"subscribers"}, Units: units, Counters: counterNames,
	}
}

func specOf(g *plan.Group) *Spec { return plan.Section[Spec](g, Section) }

// counterNames are the counters of a group: messages and bytes each way,
// and a subscribe group's disconnects and reconnects.
func counterNames(g *plan.Group) []string {
	names := []string{CounterBytesIn, CounterBytesOut, CounterConnects, CounterMessagesIn, CounterMessagesOut}
	if s := specOf(g); s != nil && s.Subscribe != nil {
		names = append(names, CounterDisconnects, CounterReconnects)
	}
	slices.Sort(names)
	return names
}

// units is how many subscribers a subscribe step holds; other groups hold
// a connection per worker.
func units(g *plan.Group, load plan.Load, params map[string]float64) (int, string) {
	if s := specOf(g); s != nil && s.Subscribe != nil {
		return runners.SubscriberUnits(params, s.Subscribe.Subscribers, Section+".subscribe.subscribers", load)
	}
	return runners.WorkerUnits(load)
}

// sent is what the section sends, a mix or a flow, and its plan key.
func (s *Spec) sent() ([]Message, string) {
	if len(s.Flow) > 0 {
		return s.Flow, "flow"
	}
	return s.Messages, "messages"
}

func validate(g *plan.Group) []error {
	s := specOf(g)
	if s == nil {
		return []error{plan.Errorf(g.Pos, "group "+g.ID+": websocket", "missing (required for runner websocket)")}
	}
	pos, key := g.SectionPos[Section], "group "+g.ID+": websocket"
	var errs []error
	if s.Subscribe != nil {
		errs = append(errs, g.NoCounts()...)
	} else {
		errs = append(errs, g.LoopProblems()...)
	}
	for _, p := range s.problems() {
		errs = append(errs, plan.Errorf(pos, key+"."+p.Key, "%s", p.Msg))
	}
	errs = append(errs, s.templateProblems(g, pos, key)...)
	for i, v := range g.Sweep["subscribers"] {
		at := fmt.Sprintf("group %s: sweep.subscribers[%d]", g.ID, i)
		if s.Subscribe == nil {
			errs = append(errs, plan.Errorf(g.Pos, at, "is for websocket.subscribe"))
			break
		}
		if v < 1 || v > plan.MaxWorkers || v != math.Trunc(v) {
			errs = append(errs, plan.Errorf(g.Pos, at, "want a whole number from 1 to %d, got %v", plan.MaxWorkers, v))
		}
	}
	return errs
}

// problems are what is wrong with the section by itself, each naming its
// field under the section.
func (s *Spec) problems() []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	if u, err := url.Parse(tmpl.Skeleton(s.URL)); err != nil || wsScheme(u.Scheme) == "" || u.Host == "" {
		bad("url", "want a ws:// or wss:// URL, got %q", s.URL)
	} else if tmpl.HostTemplated(s.URL) {
		bad("url", "%s", tmpl.HostTemplatedProblem)
	}
	for _, p := range plan.RequestProblems("", tmpl.Skeletons(s.Headers)) {
		bad("headers", "%s", p)
	}
	if len(s.Subprotocols) > maxSubprotocols || slices.Contains(s.Subprotocols, "") {
		bad("subprotocols", "want up to %d names, none empty", maxSubprotocols)
	}
	if s.MaxMessageBytes < 0 {
		bad("max_message_bytes", "must not be negative")
	}
	if _, err := runners.ParseSources("sources", s.Sources); err != nil {
		bad("sources", "%s", strings.TrimPrefix(err.Error(), "sources"))
	}
	return append(out, s.shapeProblems()...)
}

// wsScheme is the WebSocket scheme a URL scheme stands for, "" for none.
func wsScheme(scheme string) string {
	return map[string]string{"ws": "ws", "wss": "wss", "http": "ws", "https": "wss"}[scheme]
}

// shapeProblems checks what the section sends: exactly one of messages,
// flow and subscribe, and each message.
func (s *Spec) shapeProblems() []flow.Problem {
	set := 0
	for _, on := range []bool{len(s.Messages) > 0, len(s.Flow) > 0, s.Subscribe != nil} {
		if on {
			set++
		}
	}
	if set != 1 {
		return []flow.Problem{{Key: "messages", Msg: "want exactly one of messages, flow and subscribe"}}
	}
	if s.Subscribe != nil {
		return s.Subscribe.problems()
	}
	var out []flow.Problem
	msgs, list := s.sent()
	if list == "flow" {
		_, problems := flow.Compile(flowDefs(msgs), nil)
		out = append(out, problems...)
	}
	for i, m := range msgs {
		for _, p := range m.problems(list) {
			out = append(out, flow.Problem{Key: fmt.Sprintf("%s[%d].%s", list, i, p.Key), Msg: p.Msg})
		}
	}
	return out
}

func (m *Message) problems(list string) []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: k, Msg: fmt.Sprintf(format, args...)})
	}
	if (m.Text == "") == (m.Binary == "") {
		bad("text", "want text or binary (the message), one of them")
	}
	if m.Weight < 0 {
		bad("weight", "must not be negative")
	}
	if list == "flow" && m.Weight != 0 {
		bad("weight", "a flow's steps run in order, each once per iteration; weight is for messages")
	}
	if m.NoReply && (m.Await != nil || len(m.Capture) > 0) {
		bad("no_reply", "awaits nothing: it has no await nor capture")
	}
	if a := m.Await; a != nil {
		if _, err := regexp.Compile(a.Match); err != nil {
			bad("await.match", "%v", err)
		}
		if a.Count < 0 || a.Count > MaxAwaitCount {
			bad("await.count", "want 0 (1) to %d messages, got %d", MaxAwaitCount, a.Count)
		}
	}
	if list == "messages" {
		for field, on := range map[string]bool{"capture": len(m.Capture) > 0, "once": m.Once, "think": m.Think.D() != 0} {
			if on {
				bad(field, "is for the steps of a flow (websocket.flow), not the messages of a mix")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.Capture)) {
		if m.Capture[name].Header != "" || m.Capture[name].Column != "" {
			bad("capture."+name, "a WebSocket reply is a message: capture it with regex or json")
		}
	}
	return out
}

func (s *Subscribe) problems() []flow.Problem {
	var out []flow.Problem
	bad := func(k, format string, args ...any) {
		out = append(out, flow.Problem{Key: "subscribe." + k, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Subscribers < 0 || s.Subscribers > plan.MaxWorkers {
		bad("subscribers", "want 0 to %d, got %d", plan.MaxWorkers, s.Subscribers)
	}
	if _, _, err := sse.ParseRamp(s.Ramp); err != nil {
		bad("ramp", "%v", err)
	}
	return out
}

// flowDefs are the flow parts of msgs.
func flowDefs(msgs []Message) []flow.Def {
	defs := make([]flow.Def, len(msgs))
	for i, m := range msgs {
		defs[i] = flow.Def{Name: m.Name, Once: m.Once, Think: m.Think.D(), Capture: m.Capture}
	}
	return defs
}

// templateProblems compiles every template of the section: the URL and
// headers (read at each connect, before any capture), each message with
// the variables its place in a flow gives it.
func (s *Spec) templateProblems(g *plan.Group, pos plan.Pos, key string) []error {
	errs := g.Templates(pos, plan.RequestFields(key, map[string]string{"url": s.URL}, s.Headers))
	if s.Subscribe != nil {
		for i, m := range s.Subscribe.Send {
			errs = append(errs, g.Templates(pos, map[string]string{fmt.Sprintf("%s.subscribe.send[%d]", key, i): m})...)
		}
		return errs
	}
	msgs, list := s.sent()
	f := s.compileFlow()
	for i, m := range msgs {
		field := map[string]string{fmt.Sprintf("%s.%s[%d].%s", key, list, i, m.kind()): m.body()}
		errs = append(errs, g.TemplatesVars(pos, field, f.VarsBefore(i))...)
	}
	return errs
}

// kind is the message's frame type by its plan key, body its template.
func (m *Message) kind() string {
	if m.Binary != "" {
		return "binary"
	}
	return "text"
}

func (m *Message) body() string { return m.Text + m.Binary }

// compileFlow is the section's compiled flow, nil for a mix or a flow
// with problems (validate reports them).
func (s *Spec) compileFlow() *flow.Flow { return flow.Compiled(flowDefs(s.Flow), nil) }

// err is a section that fails its own checks, for New.
func (s *Spec) err() error { return flow.JoinProblems(Section, s.problems()) }
