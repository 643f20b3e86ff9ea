package transport_test

// End-to-end tests of the gRPC binding against the project's producer served
// by a real gRPC server on loopback, and against small real servers that
// misbehave on purpose.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/aaep-term/aaep-term/internal/aaeppb"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// serveGRPC serves srv on addr ("127.0.0.1:0" for any port) until the test
// ends, and returns the address.
func serveGRPC(t *testing.T, srv *grpc.Server, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// grpcProducer serves a producer playing scenarios over gRPC.
func grpcProducer(t *testing.T, addr string, opts ...grpc.ServerOption) (*producer.Producer, *grpc.Server, string) {
	t.Helper()
	p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), Logf: t.Logf})
	srv := p.GRPCServer(opts...)
	t.Cleanup(func() { p.Close() })
	return p, srv, serveGRPC(t, srv, addr)
}

func TestGRPCEndToEnd(t *testing.T) {
	p, _, addr := grpcProducer(t, "127.0.0.1:0")
	var n notes
	c, err := transport.Dial(context.Background(), "grpc://"+addr,
		transport.Options{GRPCBinding: grpcbind.Binding{}, GRPC: transport.GRPCOptions{LinkOptions: n.link(subscriptionRequest("1.0.0"))}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	session(t, c, "accept")
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != producer.Accepted {
		t.Errorf("outcomes %+v", o)
	}
}

func TestGRPCRejected(t *testing.T) {
	_, _, addr := grpcProducer(t, "127.0.0.1:0")
	var n notes
	c, err := transport.Dial(context.Background(), "grpc://"+addr,
		transport.Options{GRPCBinding: grpcbind.Binding{}, GRPC: transport.GRPCOptions{LinkOptions: n.link(subscriptionRequest("2.0.0"))}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	versionRejected(t, c)
}

// TestGRPCProducerRestarts: the producer goes away in the middle of a
// session and another comes up at the same address; the stream is opened
// again and the request sent again (B.5.4), and the first producer's
// events are not delivered twice.
func TestGRPCProducerRestarts(t *testing.T) {
	first, srv, addr := grpcProducer(t, "127.0.0.1:0")
	var n notes
	c, err := transport.Dial(context.Background(), "grpc://"+addr, transport.Options{GRPCBinding: grpcbind.Binding{},
		GRPC: transport.GRPCOptions{LinkOptions: n.link(subscriptionRequest("1.0.0"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if f, m := recv(t, c); f.Event != transport.EventHandshake || m.Type != "subscription.accepted" {
		t.Fatalf("first frame %s", f.Data)
	}
	for { // up to the prompt, which the first producer never sees answered
		if _, m := recv(t, c); strings.HasSuffix(m.Type, "awaiting.confirmation") {
			break
		}
	}
	first.Close()
	srv.Stop()
	grpcProducer(t, addr)
	f, m := recv(t, c)
	if f.Event != transport.EventHandshake || m.Type != "subscription.accepted" {
		t.Fatalf("after the restart: %s (event %q)", f.Data, f.Event)
	}
	if _, m := recv(t, c); !strings.HasSuffix(m.Type, "session.started") || m.Sequence != 0 {
		t.Errorf("the new producer's first event: %+v", m)
	}
	if text := n.text(); !strings.Contains(text, "reconnecting: The producer ended the gRPC stream with UNAVAILABLE") {
		t.Errorf("statuses:\n%s", text)
	}
}

// testCerts is a CA with a loopback server certificate and a client
// certificate.
type testCerts struct {
	pool           *x509.CertPool
	server, client tls.Certificate
}

func newTestCerts(t *testing.T) testCerts {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey := key()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, usage x509.ExtKeyUsage) tls.Certificate {
		k := key()
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "127.0.0.1"},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: k}
	}
	tc := testCerts{pool: x509.NewCertPool(), server: issue(2, x509.ExtKeyUsageServerAuth), client: issue(3, x509.ExtKeyUsageClientAuth)}
	tc.pool.AddCert(ca)
	return tc
}

// TestGRPCTLS: grpcs:// with the producer's CA, and mutual TLS with a client
// certificate; without the CA, or without the certificate a producer
// requires, Dial fails and says so.
func TestGRPCTLS(t *testing.T) {
	certs := newTestCerts(t)
	for _, tc := range []struct {
		name     string
		mutual   bool
		client   *tls.Config
		wantFail string
	}{
		{"tls", false, &tls.Config{RootCAs: certs.pool}, ""},
		{"mutual", true, &tls.Config{RootCAs: certs.pool, Certificates: []tls.Certificate{certs.client}}, ""},
		{"without the CA", false, nil, "certificate"},
		{"mutual without a certificate", true, &tls.Config{RootCAs: certs.pool}, "UNAVAILABLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scfg := &tls.Config{Certificates: []tls.Certificate{certs.server}}
			if tc.mutual {
				scfg.ClientAuth, scfg.ClientCAs = tls.RequireAndVerifyClientCert, certs.pool
			}
			p, _, addr := grpcProducer(t, "127.0.0.1:0", grpc.Creds(credentials.NewTLS(scfg)))
			var n notes
			lo := n.link(subscriptionRequest("1.0.0"))
			lo.MaxReconnects = -1
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := transport.Dial(ctx, "grpcs://"+addr, transport.Options{GRPCBinding: grpcbind.Binding{},
				GRPC: transport.GRPCOptions{LinkOptions: lo, TLSConfig: tc.client},
			})
			if tc.wantFail != "" {
				if err == nil {
					// TLS 1.3 tells a missing client certificate only after
					// the handshake, on the first read.
					err = endErr(t, c)
					c.Close()
				}
				if err == nil || !strings.Contains(err.Error(), tc.wantFail) {
					t.Fatalf("got %v, want an error with %q", err, tc.wantFail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			session(t, c, "reject")
			if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != producer.Rejected {
				t.Errorf("outcomes %+v", o)
			}
		})
	}
}

// statusServer is a gRPC producer that checks the bearer token and answers
// Subscribe with what its fields say.
type statusServer struct {
	aaeppb.UnimplementedAaepServiceServer
	tokens chan string // the authorization metadata of each call
	err    error       // the stream's end, after msgs
	msgs   [][]byte
}

func (s *statusServer) Subscribe(st grpc.BidiStreamingServer[aaeppb.AaepMessage, aaeppb.AaepMessage]) error {
	md, _ := metadata.FromIncomingContext(st.Context())
	s.tokens <- strings.Join(md.Get("authorization"), ",")
	if _, err := st.Recv(); err != nil {
		return err
	}
	for _, m := range s.msgs {
		if err := st.Send(&aaeppb.AaepMessage{Json: m}); err != nil {
			return err
		}
	}
	return s.err
}

// TestGRPCStatus: a status that forbids retrying ends the connection with
// the code in words and the producer's message sanitized; the token goes in
// the authorization metadata.
func TestGRPCStatus(t *testing.T) {
	for _, tc := range []struct {
		code  codes.Code
		words string
	}{
		{codes.Unauthenticated, "UNAUTHENTICATED: the producer wants valid credentials"},
		{codes.PermissionDenied, "PERMISSION_DENIED"},
		{codes.Unimplemented, "UNIMPLEMENTED"},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			ss := &statusServer{tokens: make(chan string, 4), err: status.Error(tc.code, "go \x1b[31maway\x1b[0m\nnow")}
			srv := grpc.NewServer()
			aaeppb.RegisterAaepServiceServer(srv, ss)
			addr := serveGRPC(t, srv, "127.0.0.1:0")
			var n notes
			c, err := transport.Dial(context.Background(), "grpc://"+addr, transport.Options{GRPCBinding: grpcbind.Binding{},
				SSE:  transport.SSEOptions{Token: "s3cret"},
				GRPC: transport.GRPCOptions{LinkOptions: n.link(subscriptionRequest("1.0.0"))},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			err = endErr(t, c)
			var ge *grpcbind.GRPCError
			if !errors.As(err, &ge) || ge.Code != tc.code || !strings.Contains(err.Error(), tc.words) {
				t.Fatalf("end: %v, want a GRPCError %s", err, tc.code)
			}
			if strings.ContainsAny(err.Error(), "\x1b\n") || strings.Contains(n.text(), "\x1b") || !strings.Contains(n.text(), "(go away now)") {
				t.Errorf("the producer's text is not sanitized: %q / %q", err, n.text())
			}
			if got := <-ss.tokens; got != "Bearer s3cret" {
				t.Errorf("authorization metadata %q", got)
			}
			if !strings.Contains(n.text(), "closed: The producer ended the gRPC stream with "+tc.words) {
				t.Errorf("statuses:\n%s", n.text())
			}
		})
	}
}

// TestGRPCTooLarge: a message over the size limit is skipped with the usual
// diagnostic, and the next one is delivered.
func TestGRPCTooLarge(t *testing.T) {
	big := append(append([]byte(`{"type":"x","pad":"`), strings.Repeat("a", 3000)...), `"}`...)
	ss := &statusServer{tokens: make(chan string, 4), msgs: [][]byte{big, []byte(`{"type":"small"}`)}}
	srv := grpc.NewServer()
	aaeppb.RegisterAaepServiceServer(srv, ss)
	addr := serveGRPC(t, srv, "127.0.0.1:0")
	var n notes
	lo := n.link(subscriptionRequest("1.0.0"))
	lo.MaxFrameBytes = 1000
	c, err := transport.Dial(context.Background(), "grpc://"+addr, transport.Options{GRPCBinding: grpcbind.Binding{}, GRPC: transport.GRPCOptions{LinkOptions: lo}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, m := recv(t, c); m.Type != "small" {
		t.Errorf("got %q after the large message", m.Type)
	}
	if !strings.Contains(n.text(), "diag: Skipped a message from the producer that is too large: 3021 bytes, the limit is 1000 bytes.") {
		t.Errorf("notes:\n%s", n.text())
	}
	if got := <-ss.tokens; got != "" {
		t.Errorf("a token was sent that nobody gave: %q", got)
	}
}

func TestGRPCGetManifest(t *testing.T) {
	_, _, addr := grpcProducer(t, "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := grpcbind.GetManifest(ctx, "grpc://"+addr, transport.GRPCOptions{})
	if err != nil || !strings.Contains(string(m), `"agent_id"`) {
		t.Fatalf("manifest %s, %v", m, err)
	}
	srv := grpc.NewServer()
	aaeppb.RegisterAaepServiceServer(srv, &statusServer{})
	_, err = grpcbind.GetManifest(ctx, "grpc://"+serveGRPC(t, srv, "127.0.0.1:0"), transport.GRPCOptions{})
	var ge *grpcbind.GRPCError
	if !errors.As(err, &ge) || ge.Code != codes.Unimplemented || !errors.Is(err, transport.ErrNoManifestCall) {
		t.Errorf("from a producer without GetManifest: %v", err)
	}
}

func TestGRPCEndpoint(t *testing.T) {
	for _, ep := range []string{"grpc://127.0.0.1", "grpc://:1", "grpcs://h:1/path", "grpc://u@h:1"} {
		if _, err := transport.Dial(context.Background(), ep, transport.Options{GRPCBinding: grpcbind.Binding{}}); err == nil || !strings.Contains(err.Error(), "gRPC endpoint") {
			t.Errorf("%s: %v", ep, err)
		}
	}
}

// TestGRPCCertificateChanges: a producer that comes back with a certificate
// no trusted authority signed is not retried for ever: the connection ends
// and says why.
func TestGRPCCertificateChanges(t *testing.T) {
	trusted, other := newTestCerts(t), newTestCerts(t)
	creds := func(c testCerts) grpc.ServerOption {
		return grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{c.server}}))
	}
	first, srv, addr := grpcProducer(t, "127.0.0.1:0", creds(trusted))
	var n notes
	c, err := transport.Dial(context.Background(), "grpcs://"+addr, transport.Options{GRPCBinding: grpcbind.Binding{},
		GRPC: transport.GRPCOptions{LinkOptions: n.link(subscriptionRequest("1.0.0")), TLSConfig: &tls.Config{RootCAs: trusted.pool}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if f, m := recv(t, c); f.Event != transport.EventHandshake || m.Type != "subscription.accepted" {
		t.Fatalf("first frame %s", f.Data)
	}
	first.Close()
	srv.Stop()
	grpcProducer(t, addr, creds(other))
	err = endErr(t, c)
	if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("after the certificate changed: %v\n%s", err, n.text())
	}
}

// A producer that accepts the TCP connection and then says nothing is
// given up on after --connect-timeout (SSEOptions.HeaderTimeout, as for
// every binding), not after gRPC's own 20 seconds.
func TestGRPCConnectTimeout(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() }) // held open, silent
		}
	}()
	// The context is the test's last resort, far below gRPC's 20 s.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	const limit = 150 * time.Millisecond
	_, err = transport.Dial(ctx, "grpc://"+ln.Addr().String(), transport.Options{GRPCBinding: grpcbind.Binding{}, SSE: transport.SSEOptions{HeaderTimeout: limit}})
	var late *transport.HeaderTimeoutError
	if !errors.As(err, &late) || late.After != limit || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Fatalf("error %v; want the producer at %s said to have not answered within %v", err, ln.Addr(), limit)
	}
}

// A program that names no gRPC binding refuses grpc:// endpoints, in words
// that say why, rather than linking gRPC for everyone.
func TestGRPCWithoutBinding(t *testing.T) {
	t.Parallel()
	_, err := transport.Dial(context.Background(), "grpc://127.0.0.1:1", transport.Options{})
	if err == nil || !strings.Contains(err.Error(), "no gRPC binding (package transport/grpcbind)") {
		t.Errorf("Dial without a gRPC binding: %v", err)
	}
}
