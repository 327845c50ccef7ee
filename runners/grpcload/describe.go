package grpcload

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// descriptors finds a service's descriptor by its full name: a compiled
// .proto file's, or what the server's reflection service told.
type descriptors interface {
	FindDescriptorByName(name protoreflect.FullName) (protoreflect.Descriptor, error)
}

// compileProto parses the section's .proto file with its imports; both
// are relative to dir, the plan file's folder.
func compileProto(ctx context.Context, dir string, s *Spec) (descriptors, error) {
	file, paths := protoPaths(dir, s.Proto, s.ImportPaths)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: paths}),
	}
	files, err := c.Compile(ctx, file)
	if err != nil {
		return nil, fmt.Errorf("grpc.proto %s: %w", s.Proto, err)
	}
	return files.AsResolver(), nil
}

// protoPaths are the name to compile the proto file under and the
// import paths to find it and its imports on: the file's name relative
// to the first import path holding it, else its base name with its own
// folder added last to the paths.
func protoPaths(dir, proto string, imports []string) (string, []string) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(dir, p)
	}
	file := abs(proto)
	var paths []string
	for _, p := range imports {
		paths = append(paths, abs(p))
	}
	if len(paths) == 0 {
		paths = []string{dir}
	}
	for _, p := range paths {
		if rel, err := filepath.Rel(p, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel), paths
		}
	}
	return filepath.Base(file), append(paths, filepath.Dir(file))
}

// findMethod is the descriptor of method (package.Service/Method, a
// leading / allowed) in d.
func findMethod(d descriptors, method string) (protoreflect.MethodDescriptor, error) {
	svc, name, _ := cutMethod(method)
	desc, err := d.FindDescriptorByName(protoreflect.FullName(svc))
	if err != nil {
		return nil, fmt.Errorf("service %s not found: %w", svc, err)
	}
	sd, ok := desc.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is a %s, not a service", svc, kindOf(desc))
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, errors.New("service " + svc + " has no method " + name)
	}
	return md, nil
}

// cutMethod splits /package.Service/Method into its service and method.
func cutMethod(method string) (svc, name string, ok bool) {
	return strings.Cut(trimSlash(method), "/")
}

func kindOf(d protoreflect.Descriptor) string {
	switch d.(type) {
	case protoreflect.MessageDescriptor:
		return "message"
	case protoreflect.EnumDescriptor:
		return "enum"
	}
	return "descriptor"
}
