package main

// The listener over the gRPC binding (appendix B.5), against the project's
// producer served by a real gRPC server on loopback.

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/aaep-term/aaep-term/internal/aaeppb"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/subscriber"
)

// serveGRPC serves srv on loopback until the test ends and returns its
// address.
func serveGRPC(t *testing.T, srv *grpc.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// serveProducerGRPC serves a producer over gRPC and returns it with its
// grpc:// endpoint (grpcs:// with server options giving TLS).
func serveProducerGRPC(t *testing.T, opts producer.Options, sopts ...grpc.ServerOption) (*producer.Producer, string) {
	t.Helper()
	opts.EndWhenDone = true
	p := producer.New(opts)
	t.Cleanup(func() { p.Close() })
	return p, "grpc://" + serveGRPC(t, p.GRPCServer(sopts...))
}

// Every reason code of a refusal gets its sentence over gRPC too, and the
// listener exits 1.
func TestGRPCRefusalEveryReason(t *testing.T) {
	t.Parallel()
	for _, code := range producer.ReasonCodes {
		t.Run(code, func(t *testing.T) {
			_, url := serveProducerGRPC(t, producer.Options{Scenarios: scenarios(t, "happy"), Refuse: &producer.Refusal{Code: code, Message: "Because.", RetryAfter: -1}})
			r := startListener(t, "--plain", "--no-sign", url)
			if c := r.exitCode(t); c != 1 {
				t.Errorf("exit status %d after a refusal, want 1", c)
			}
			want := "The producer refused the subscription: " + subscriber.Hints(listenHints).RejectionWords(code) + " It says: Because."
			if !strings.Contains(r.stdout(), want) {
				t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, r.stdout(), r.stderr())
			}
		})
	}
}

// grpcs:// with --ca, and mutual TLS with --cert and --client-key; without
// the client certificate a producer requires, the listener does not
// subscribe.
func TestGRPCTLSListener(t *testing.T) {
	t.Parallel()
	pki := newPKI(t)
	for _, tc := range []struct {
		name    string
		mutual  bool
		args    []string
		connect bool
	}{
		{"grpcs with ca", false, []string{"--ca", pki.CAFile}, true},
		{"grpcs mutual", true, []string{"--ca", pki.CAFile, "--cert", pki.ClientCert, "--client-key", pki.ClientKey}, true},
		{"grpcs without ca", false, nil, false},
		{"grpcs mutual without cert", true, []string{"--ca", pki.CAFile}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &tls.Config{Certificates: []tls.Certificate{pki.Server}}
			if tc.mutual {
				cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, pki.Pool
			}
			p, url := serveProducerGRPC(t, producer.Options{Scenarios: scenarios(t, "confirm")}, grpc.Creds(credentials.NewTLS(cfg)))
			url = "grpcs" + strings.TrimPrefix(url, "grpc")
			r := startListener(t, append(append([]string{"--plain", "--auto-reply", "reject"}, tc.args...), url)...)
			code := r.exitCode(t)
			if tc.connect {
				autoRejected(t, r, p, code)
				return
			}
			if code == 0 || len(p.Outcomes()) != 0 || strings.Contains(r.stdout(), "Subscribed to") {
				t.Fatalf("subscribed without the right certificates: exit %d, outcomes %+v\n%s\n%s", code, p.Outcomes(), r.stdout(), r.stderr())
			}
		})
	}
}

// phoenixGRPC is a gRPC producer whose first stream fails with UNAVAILABLE
// after five events and whose second sends all ten again from the start.
type phoenixGRPC struct {
	aaeppb.UnimplementedAaepServiceServer
	streams atomic.Int32
}

func (s *phoenixGRPC) Subscribe(st grpc.BidiStreamingServer[aaeppb.AaepMessage, aaeppb.AaepMessage]) error {
	n := s.streams.Add(1)
	if n > 2 {
		return status.Error(codes.PermissionDenied, "no more")
	}
	if _, err := st.Recv(); err != nil {
		return err
	}
	send := func(b []byte) { _ = st.Send(&aaeppb.AaepMessage{Json: b}) }
	send([]byte(phoenixAccepted(n)))
	last := 9
	if n == 1 {
		last = 4
	}
	for i := 0; i <= last; i++ {
		send(phoenixEvent(i))
	}
	if n == 1 {
		return status.Error(codes.Unavailable, "restarting")
	}
	send([]byte(`{"type":"subscription.close","subscription_id":"sub_phoenix2","reason_code":"producer_shutdown"}`))
	return nil
}

// A gRPC producer restarted mid-session: the listener opens the stream
// again, sends the request again, and announces each event once.
func TestGRPCProducerRestartsListener(t *testing.T) {
	t.Parallel()
	ph := &phoenixGRPC{}
	srv := grpc.NewServer()
	aaeppb.RegisterAaepServiceServer(srv, ph)
	r := startListener(t, "--plain", "--no-sign", "grpc://"+serveGRPC(t, srv))
	r.wait(t)
	out := r.stdout()
	for i := range 10 {
		if n := strings.Count(out, fmt.Sprintf("Count %d.", i)); n != 1 {
			t.Errorf("event %d announced %d times", i, n)
		}
	}
	// The first subscription is said as listening, the second after
	// the reconnect that was heard.
	if n := strings.Count(out, "Subscribed to Phoenix."); n != 1 || ph.streams.Load() != 2 || !strings.Contains(out, "Listening to grpc:") {
		t.Errorf("said subscribed again %d times over %d streams, want 1 and 2", n, ph.streams.Load())
	}
	if !strings.Contains(out, "UNAVAILABLE") && !strings.Contains(out, "reconnecting") {
		t.Errorf("the reconnect is not told")
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", out, r.stderr())
	}
}

// --demo --demo-grpc plays the demo over gRPC; an answer goes back signed
// in the framed sigrpl:signed.reply form, which the demo producer checks.
func TestDemoGRPC(t *testing.T) {
	t.Parallel()
	r := startListener(t, "--plain", "--demo", "--demo-grpc", "--demo-speed", "0", "--demo-scenarios", "confirm")
	r.waitOutput(t, "Listening to grpc://127.0.0.1:")
	r.waitOutput(t, "Confirmation needed")
	fmt.Fprintln(r.stdin, "accept 1\nyes")
	r.waitOutput(t, "The answer was signed with your key")
	r.waitOutput(t, "the producer checks signatures")
	if code := r.exitCode(t); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, r.stdout(), r.stderr())
	}
}
