package grpcload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// maxReflectFiles bounds the files a server's reflection may describe.
const maxReflectFiles = 512

// reflectServices asks the server's reflection service (v1, else
// v1alpha) for the files declaring services and their imports, and
// builds them.
func reflectServices(ctx context.Context, conn grpc.ClientConnInterface, services []string) (descriptors, error) {
	files, err := reflectFiles(ctx, conn, services, false)
	if status.Code(err) == codes.Unimplemented {
		files, err = reflectFiles(ctx, conn, services, true)
	}
	if err != nil {
		return nil, fmt.Errorf("server reflection: %w", err)
	}
	return files, nil
}

// reflectFiles gathers the files declaring services over one reflection
// stream: v1's, or v1alpha's (older servers; ghz's and grpcurl's
// fallback) when alpha is set.
func reflectFiles(ctx context.Context, conn grpc.ClientConnInterface, services []string, alpha bool) (descriptors, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stream reflectionStream
	var err error
	if alpha {
		var s reflectionv1alpha.ServerReflection_ServerReflectionInfoClient
		s, err = reflectionv1alpha.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
		stream = alphaStream{s}
	} else {
		stream, err = reflectionv1.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	}
	if err != nil {
		return nil, err
	}
	fr := &fileReflector{stream: stream, have: map[string]*descriptorpb.FileDescriptorProto{}}
	for _, svc := range services {
		if err := fr.ask(&reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: svc}}); err != nil {
			return nil, fmt.Errorf("of %s: %w", svc, err)
		}
	}
	if err := fr.imports(); err != nil {
		return nil, err
	}
	files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: fr.files})
	if err != nil {
		return nil, fmt.Errorf("the descriptors it sent: %w", err)
	}
	return files, nil
}

// reflectionStream is a reflection stream in v1's messages.
type reflectionStream interface {
	Send(*reflectionv1.ServerReflectionRequest) error
	Recv() (*reflectionv1.ServerReflectionResponse, error)
}

// alphaStream is a v1alpha stream in v1's messages, which have the same
// fields and numbers: each is converted by its wire form.
type alphaStream struct {
	s reflectionv1alpha.ServerReflection_ServerReflectionInfoClient
}

func (a alphaStream) Send(r *reflectionv1.ServerReflectionRequest) error {
	//lint:ignore SA1019 v1alpha is deprecated, and the only reflection older servers have
	var q reflectionv1alpha.ServerReflectionRequest
	if err := convert(r, &q); err != nil {
		return err
	}
	return a.s.Send(&q)
}

func (a alphaStream) Recv() (*reflectionv1.ServerReflectionResponse, error) {
	m, err := a.s.Recv()
	if err != nil {
		return nil, err
	}
	var out reflectionv1.ServerReflectionResponse
	return &out, convert(m, &out)
}

// convert copies from into to, messages of the same wire form.
func convert(from, to proto.Message) error {
	b, err := proto.Marshal(from)
	if err != nil {
		return err
	}
	return proto.Unmarshal(b, to)
}

// fileReflector gathers the files a reflection stream sends.
type fileReflector struct {
	stream reflectionStream
	have   map[string]*descriptorpb.FileDescriptorProto
	files  []*descriptorpb.FileDescriptorProto
}

// ask sends one request and keeps the files of its answer.
func (fr *fileReflector) ask(r *reflectionv1.ServerReflectionRequest) error {
	if err := fr.stream.Send(r); err != nil {
		if errors.Is(err, io.EOF) { // the server ended the stream: its status says why
			_, err = fr.stream.Recv()
		}
		return err
	}
	resp, err := fr.stream.Recv()
	if err != nil {
		return err
	}
	if e := resp.GetErrorResponse(); e != nil {
		return errors.New(strings.TrimSpace(e.GetErrorMessage()))
	}
	for _, b := range resp.GetFileDescriptorResponse().GetFileDescriptorProto() {
		fd := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(b, fd); err != nil {
			return fmt.Errorf("a file descriptor: %w", err)
		}
		if err := fr.add(fd); err != nil {
			return err
		}
	}
	return nil
}

func (fr *fileReflector) add(fd *descriptorpb.FileDescriptorProto) error {
	if _, ok := fr.have[fd.GetName()]; ok {
		return nil
	}
	if len(fr.files) >= maxReflectFiles {
		return fmt.Errorf("more than %d files", maxReflectFiles)
	}
	fr.have[fd.GetName()] = fd
	fr.files = append(fr.files, fd)
	return nil
}

// imports fetches every import not sent yet: from this program's own
// registry when it has it (the well-known types), else from the server.
func (fr *fileReflector) imports() error {
	for i := 0; i < len(fr.files); i++ {
		for _, dep := range fr.files[i].GetDependency() {
			if _, ok := fr.have[dep]; ok {
				continue
			}
			if d, err := protoregistry.GlobalFiles.FindFileByPath(dep); err == nil {
				if err := fr.add(protodesc.ToFileDescriptorProto(d)); err != nil {
					return err
				}
				continue
			}
			if err := fr.ask(&reflectionv1.ServerReflectionRequest{MessageRequest: &reflectionv1.ServerReflectionRequest_FileByFilename{FileByFilename: dep}}); err != nil {
				return fmt.Errorf("import %s: %w", dep, err)
			}
			if _, ok := fr.have[dep]; !ok {
				return fmt.Errorf("import %s: not sent", dep)
			}
		}
	}
	return nil
}
