package grpcload

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// frame is one message as it goes on the wire: the runner encodes a
// request itself (once for a message without templates) and decodes a
// reply only when a capture reads it.
type frame struct {
	b []byte
	// keep says a reply's bytes are wanted; otherwise only its size is
	// noted.
	keep bool
	n    int
}

// rawCodec hands frames to grpc-go as they are, and other messages (the
// reflection client's) to the proto codec. Its name is proto's, so the
// content type is application/grpc+proto, which servers expect.
type rawCodec struct{}

var protoCodec = encoding.GetCodecV2(proto.Name)

// Marshal is the frame's bytes; grpc-go only reads them.
func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	f, ok := v.(*frame)
	if !ok {
		return protoCodec.Marshal(v)
	}
	return mem.BufferSlice{mem.SliceBuffer(f.b)}, nil
}

// Unmarshal notes a reply's size, and copies its bytes when they are
// wanted (grpc-go has already bounded them by max_recv_bytes).
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*frame)
	if !ok {
		return protoCodec.Unmarshal(data, v)
	}
	f.n = data.Len()
	if f.keep {
		if cap(f.b) < f.n {
			f.b = make([]byte, f.n)
		}
		f.b = f.b[:f.n]
		data.CopyTo(f.b)
	}
	return nil
}

// Name is the content subtype.
func (rawCodec) Name() string { return "proto" }
