package grpcload

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/benchtui/benchtui/runners"
	"github.com/benchtui/benchtui/runners/plan"
	"github.com/benchtui/benchtui/runners/tmpl"
)

// call is a compiled call of the mix, or step of the flow.
type call struct {
	name     string
	method   string // /package.Service/Method
	weight   int
	message  *tmpl.Template // nil when the message has no templates
	text     string         // the message's JSON when it has none
	metadata []mdField
	static   metadata.MD  // the metadata when no value has templates
	messages int          // requests a client stream sends
	await    int          // replies a server stream waits for; 0: its end
	expect   []codes.Code // the codes that are a success; nil: OK

	// Set by bind, once the method's descriptor is known.
	desc    protoreflect.MethodDescriptor
	stream  *grpc.StreamDesc // nil for a unary call
	encoded []byte           // the message without templates, encoded
}

// mdField is one metadata entry: its value a template or literal text.
type mdField struct {
	key, lit string
	t        *tmpl.Template
}

// compileCall compiles c's templates; common is the section's metadata,
// vars the flow's variables before c.
func compileCall(g *plan.Group, c *Call, common map[string]string, vars []string) (*call, error) {
	out := &call{name: c.Name, method: "/" + trimSlash(c.Method), weight: max(c.Weight, 1),
		messages: max(c.Messages, 1), await: c.Await, text: c.Message}
	if out.text == "" {
		out.text = "{}"
	}
	expect, err := parseCodes(c.ExpectCodes)
	if err != nil {
		return nil, err
	}
	out.expect = expect
	if tmpl.Has(c.Message) {
		t, err := g.TemplateVars(plan.Pos{}, "message", c.Message, vars)
		if err != nil {
			return nil, err
		}
		out.message = t
	}
	md := maps.Clone(common)
	if md == nil {
		md = map[string]string{}
	}
	maps.Copy(md, c.Metadata)
	templated := false
	for _, k := range slices.Sorted(maps.Keys(md)) {
		f := mdField{key: k, lit: md[k]}
		if tmpl.Has(md[k]) {
			t, err := g.TemplateVars(plan.Pos{}, "metadata."+k, md[k], vars)
			if err != nil {
				return nil, err
			}
			f.t, templated = t, true
		}
		out.metadata = append(out.metadata, f)
	}
	if !templated && len(md) > 0 {
		out.static = metadata.New(md)
	}
	return out, nil
}

func trimSlash(method string) string {
	if len(method) > 0 && method[0] == '/' {
		return method[1:]
	}
	return method
}

// bind gives the call its method's descriptor, and encodes a message
// without templates once. messages is for a method that streams
// requests, await for one that streams replies.
func (c *call) bind(md protoreflect.MethodDescriptor) error {
	c.desc = md
	if c.messages > 1 && !md.IsStreamingClient() {
		return fmt.Errorf("messages: %s takes one request (not a client stream)", md.FullName())
	}
	if c.await > 0 && !md.IsStreamingServer() {
		return fmt.Errorf("await: %s sends one reply (not a server stream)", md.FullName())
	}
	if md.IsStreamingClient() || md.IsStreamingServer() {
		c.stream = &grpc.StreamDesc{StreamName: string(md.Name()), ServerStreams: md.IsStreamingServer(), ClientStreams: md.IsStreamingClient()}
	}
	if c.message != nil {
		return nil
	}
	m := dynamicpb.NewMessage(md.Input())
	if err := protojson.Unmarshal([]byte(c.text), m); err != nil {
		return fmt.Errorf("message: not a %s: %w", md.Input().FullName(), err)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return fmt.Errorf("message: %w", err)
	}
	c.encoded = b
	return nil
}

// judge is the error kind of a call that ended with err (kind as
// classify read it): a status among expect_codes is a success, and OK
// outside them is an error of kind grpc_ok.
func (c *call) judge(kind string, err error) string {
	if c.expect == nil || kind == runners.KindCanceled {
		return kind
	}
	code := status.Code(err)
	switch {
	case slices.Contains(c.expect, code):
		return ""
	case err == nil:
		return codeKind(codes.OK)
	}
	return kind
}

// sends is how many requests one call sends: messages on a client
// stream, else one.
func (c *call) sends() int {
	if c.stream != nil && c.stream.ClientStreams {
		return c.messages
	}
	return 1
}

// request is the call's request encoded for st, in a slice of its own
// (grpc-go may still be writing the one before): the static one, or the
// template rendered into buf, read into m and encoded.
func (c *call) request(buf []byte, st *tmpl.State, m *dynamicpb.Message) ([]byte, []byte, error) {
	if c.message == nil {
		return c.encoded, buf, nil
	}
	buf = c.message.Append(buf[:0], st)
	if err := protojson.Unmarshal(buf, m); err != nil {
		return nil, buf, fmt.Errorf("%w: not a %s: %v", errBadMessage, c.desc.Input().FullName(), err)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, buf, fmt.Errorf("%w: %v", errBadMessage, err)
	}
	return b, buf, nil
}

// outgoing is ctx carrying the call's metadata for st.
func (c *call) outgoing(ctx context.Context, st *tmpl.State, buf []byte) (context.Context, []byte) {
	switch {
	case len(c.metadata) == 0:
		return ctx, buf
	case c.static != nil:
		return metadata.NewOutgoingContext(ctx, c.static), buf
	}
	md := make(metadata.MD, len(c.metadata))
	for _, f := range c.metadata {
		v := f.lit
		if f.t != nil {
			buf = f.t.Append(buf[:0], st)
			v = string(buf)
		}
		md[f.key] = []string{v}
	}
	return metadata.NewOutgoingContext(ctx, md), buf
}

// pick draws a call of the mix by weight.
func (r *runner) pick(rnd *rand.Rand) *call { return r.calls[runners.PickWeighted(rnd, r.cum)] }
