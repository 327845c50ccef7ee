package demo

import (
	"context"
	_ "embed" // the gRPC stand-in's .proto
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/reflection"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// GRPCProto is the source of the gRPC stand-in's service
// (benchtui.demo.Bench), which a plan may name as its .proto file.
//
//go:embed grpc_bench.proto
var GRPCProto string

// GRPCProtoFile is GRPCProto's file name.
const GRPCProtoFile = "grpc_bench.proto"

// GRPCService is the stand-in's full service name.
const GRPCService = "benchtui.demo.Bench"

// Bounds of what one call may ask the stand-in for.
const (
	maxGRPCDelay = 10 * time.Second
	maxTicks     = 10_000
)

// GRPCServer is the gRPC stand-in: benchtui.demo.Bench (GRPCProto) on
// grpc-go with dynamic messages, server reflection (v1 and v1alpha) on,
// counting what it served.
type GRPCServer struct {
	srv    *grpc.Server
	ln     net.Listener
	done   chan struct{}
	nextID atomic.Int64
	in     atomic.Int64 // messages received
	out    atomic.Int64 // messages sent
	mu     sync.Mutex
	calls  map[string]int64 // calls answered, by method name
}

// grpcBenchFile compiles GRPCProto once.
var grpcBenchFile = sync.OnceValues(func() (protoreflect.FileDescriptor, error) {
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{GRPCProtoFile: GRPCProto}),
	}}
	files, err := c.Compile(context.Background(), GRPCProtoFile)
	if err != nil {
		return nil, err
	}
	return files[0], nil
})

// ServeGRPC serves the stand-in on addr (plaintext) until Close.
func ServeGRPC(addr string, opts ...grpc.ServerOption) (*GRPCServer, error) {
	fd, err := grpcBenchFile()
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", GRPCProtoFile, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &GRPCServer{srv: grpc.NewServer(opts...), ln: ln, done: make(chan struct{}), calls: map[string]int64{}}
	s.srv.RegisterService(s.serviceDesc(fd.Services().ByName("Bench")), nil)
	files := new(protoregistry.Files)
	if err := files.RegisterFile(fd); err != nil {
		ln.Close()
		return nil, err
	}
	ropts := reflection.ServerOptions{Services: s.srv, DescriptorResolver: files}
	reflectionv1.RegisterServerReflectionServer(s.srv, reflection.NewServerV1(ropts))
	reflectionv1alpha.RegisterServerReflectionServer(s.srv, reflection.NewServer(ropts))
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Addr is the address the stand-in listens on.
func (s *GRPCServer) Addr() net.Addr { return s.ln.Addr() }

// Calls is how many calls of method (Echo, Ticks, …) the stand-in
// answered with OK.
func (s *GRPCServer) Calls(method string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// MessagesIn and MessagesOut are the messages the stand-in received and
// sent, over every method.
func (s *GRPCServer) MessagesIn() int64  { return s.in.Load() }
func (s *GRPCServer) MessagesOut() int64 { return s.out.Load() }

// Close stops the server at once (calls in flight are cut) and waits for
// it.
func (s *GRPCServer) Close() {
	s.srv.Stop()
	<-s.done
}

func (s *GRPCServer) answered(method protoreflect.Name) {
	s.mu.Lock()
	s.calls[string(method)]++
	s.mu.Unlock()
}

// serviceDesc is Bench's handlers, on dynamic messages.
func (s *GRPCServer) serviceDesc(sd protoreflect.ServiceDescriptor) *grpc.ServiceDesc {
	m := func(name protoreflect.Name) protoreflect.MethodDescriptor { return sd.Methods().ByName(name) }
	return &grpc.ServiceDesc{
		ServiceName: string(sd.FullName()),
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{
			{MethodName: "Echo", Handler: s.unary(m("Echo"), s.echo)},
			{MethodName: "Fail", Handler: s.unary(m("Fail"), fail)},
		},
		Streams: []grpc.StreamDesc{
			{StreamName: "Ticks", Handler: s.stream(m("Ticks"), s.ticks), ServerStreams: true},
			{StreamName: "Sum", Handler: s.stream(m("Sum"), s.sum), ClientStreams: true},
			{StreamName: "Chat", Handler: s.stream(m("Chat"), s.chat), ServerStreams: true, ClientStreams: true},
		},
		Metadata: GRPCProtoFile,
	}
}

type unaryServe func(ctx context.Context, in, out *dynamicpb.Message) error

func (s *GRPCServer) unary(md protoreflect.MethodDescriptor, serve unaryServe) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	handle := func(ctx context.Context, req any) (any, error) {
		in := req.(*dynamicpb.Message)
		out := dynamicpb.NewMessage(md.Output())
		if err := serve(ctx, in, out); err != nil {
			return nil, err
		}
		s.out.Add(1)
		s.answered(md.Name())
		return out, nil
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/" + string(md.Parent().FullName()) + "/" + string(md.Name())}
	return func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
		in := dynamicpb.NewMessage(md.Input())
		if err := dec(in); err != nil {
			return nil, err
		}
		s.in.Add(1)
		if interceptor == nil {
			return handle(ctx, in)
		}
		return interceptor(ctx, in, info, handle)
	}
}

// grpcStream is one call of a streaming method, its messages counted.
type grpcStream struct {
	grpc.ServerStream
	s  *GRPCServer
	md protoreflect.MethodDescriptor
}

func (st *grpcStream) recv() (*dynamicpb.Message, error) {
	in := dynamicpb.NewMessage(st.md.Input())
	if err := st.RecvMsg(in); err != nil {
		return nil, err
	}
	st.s.in.Add(1)
	return in, nil
}

func (st *grpcStream) send(out *dynamicpb.Message) error {
	if err := st.SendMsg(out); err != nil {
		return err
	}
	st.s.out.Add(1)
	return nil
}

func (st *grpcStream) reply() *dynamicpb.Message { return dynamicpb.NewMessage(st.md.Output()) }

func (s *GRPCServer) stream(md protoreflect.MethodDescriptor, serve func(*grpcStream) error) grpc.StreamHandler {
	return func(_ any, ss grpc.ServerStream) error {
		if err := serve(&grpcStream{ServerStream: ss, s: s, md: md}); err != nil {
			return err
		}
		s.answered(md.Name())
		return nil
	}
}

// field is the descriptor of m's field name.
func field(m *dynamicpb.Message, name protoreflect.Name) protoreflect.FieldDescriptor {
	return m.Descriptor().Fields().ByName(name)
}

func (s *GRPCServer) echo(ctx context.Context, in, out *dynamicpb.Message) error {
	if d := time.Duration(in.Get(field(in, "delay_ms")).Int()) * time.Millisecond; d > 0 {
		if err := sleepGRPC(ctx, min(d, maxGRPCDelay)); err != nil {
			return err
		}
	}
	s.echoInto(in, out)
	return nil
}

func (s *GRPCServer) echoInto(in, out *dynamicpb.Message) {
	out.Set(field(out, "message"), protoreflect.ValueOfString("hello "+in.Get(field(in, "name")).String()))
	out.Set(field(out, "n"), in.Get(field(in, "n")))
	out.Set(field(out, "id"), protoreflect.ValueOfInt64(s.nextID.Add(1)))
}

func fail(_ context.Context, in, _ *dynamicpb.Message) error {
	code := codes.Code(in.Get(field(in, "code")).Int())
	if code == codes.OK {
		return nil
	}
	return status.Error(code, in.Get(field(in, "message")).String())
}

func (s *GRPCServer) ticks(st *grpcStream) error {
	in, err := st.recv()
	if err != nil {
		return err
	}
	n := min(in.Get(field(in, "count")).Int(), maxTicks)
	every := min(time.Duration(in.Get(field(in, "every_ms")).Int())*time.Millisecond, maxGRPCDelay)
	for i := range n {
		if i > 0 && every > 0 {
			if err := sleepGRPC(st.Context(), every); err != nil {
				return err
			}
		}
		out := st.reply()
		out.Set(field(out, "i"), protoreflect.ValueOfInt32(int32(i+1)))
		if err := st.send(out); err != nil {
			return err
		}
	}
	return nil
}

func sleepGRPC(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

func (s *GRPCServer) sum(st *grpcStream) error {
	var sum, n int64
	for {
		in, err := st.recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		sum, n = sum+in.Get(field(in, "n")).Int(), n+1
	}
	out := st.reply()
	out.Set(field(out, "sum"), protoreflect.ValueOfInt64(sum))
	out.Set(field(out, "messages"), protoreflect.ValueOfInt32(int32(n)))
	return st.send(out)
}

func (s *GRPCServer) chat(st *grpcStream) error {
	for {
		in, err := st.recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		out := st.reply()
		s.echoInto(in, out)
		if err := st.send(out); err != nil {
			return err
		}
	}
}
