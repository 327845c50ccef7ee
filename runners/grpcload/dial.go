package grpcload

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/benchtui/benchtui/runners"
)

// maxHeaderListBytes bounds the headers and trailers a server may send
// on one call.
const maxHeaderListBytes = 1 << 20

// connect opens a client connection to the target and waits, up to the
// call deadline, until it is ready: a connection's setup is in no call's
// latency.
func (r *runner) connect(ctx context.Context) (*grpc.ClientConn, error) {
	creds, err := r.credentials()
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: r.timeout}
	c, err := grpc.NewClient("passthrough:///"+r.spec.Target,
		grpc.WithTransportCredentials(creds),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return runners.Dial(ctx, dialer, "tcp", addr)
		}),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallRecvMsgSize(r.maxRecv)),
		grpc.WithMaxHeaderListSize(maxHeaderListBytes),
		grpc.WithDisableRetry(),
		grpc.WithUserAgent("benchtui"),
	)
	if err != nil {
		return nil, fmt.Errorf("group %s: grpc.target %s: %w", r.group.ID, r.spec.Target, err)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := waitReady(ctx, c); err != nil {
		c.Close()
		return nil, fmt.Errorf("group %s: connecting to grpc at %s: %w", r.group.ID, r.spec.Target, err)
	}
	return c, nil
}

// waitReady connects c and waits until it is ready, fails or ctx ends.
func waitReady(ctx context.Context, c *grpc.ClientConn) error {
	c.Connect()
	for {
		s := c.GetState()
		switch s {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure, connectivity.Shutdown:
			return errors.New("the connection failed (" + strings.ToLower(s.String()) + ")")
		}
		if !c.WaitForStateChange(ctx, s) {
			return fmt.Errorf("not ready in time: %w", ctx.Err())
		}
	}
}

// credentials are plaintext's, or TLS's as tls: says; a CA file is
// relative to the plan file's folder.
func (r *runner) credentials() (credentials.TransportCredentials, error) {
	t := r.spec.TLS
	if t == nil {
		return insecure.NewCredentials(), nil
	}
	conf := &tls.Config{ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify, MinVersion: tls.VersionTLS12}
	if t.CAFile != "" {
		path := t.CAFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(r.dir, path)
		}
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("group %s: grpc.tls.ca_file: %w", r.group.ID, err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("group %s: grpc.tls.ca_file %s: no PEM certificate", r.group.ID, t.CAFile)
		}
	}
	return credentials.NewTLS(conf), nil
}
