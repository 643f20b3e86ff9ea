package transport_test

// End-to-end tests of the message bindings against the project's producer:
// a loopback WebSocket server, a Unix socket, and the producer spawned as a
// child process (this test binary, re-run with AAEP_TEST_STDIO_PRODUCER).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/transport"
)

// childEnv makes this test binary act as a stdio producer; its value picks
// the behaviour: "serve", or "crash" (exit 3 after reading the request).
const childEnv = "AAEP_TEST_STDIO_PRODUCER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(stdioProducer(mode))
	}
	os.Exit(m.Run())
}

// stdioProducer is the child's main.
func stdioProducer(mode string) int {
	fmt.Fprintln(os.Stderr, "demo producer \x1b[31mstarting\x1b[0m")
	if mode == "crash" {
		buf := make([]byte, 1)
		_, _ = os.Stdin.Read(buf)
		fmt.Fprintln(os.Stderr, "panic: out of cheese")
		return 3
	}
	all, err := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sel, err := producer.SelectScenarios(all, []string{"confirm"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	p := producer.New(producer.Options{Scenarios: sel, Logf: func(f string, a ...any) {
		fmt.Fprintf(os.Stderr, f+"\n", a...)
	}})
	defer p.Close()
	if err := p.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// notes records what a connection reports.
type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) status(s transport.Status, detail string) { n.add(s.String() + ": " + detail) }
func (n *notes) diag(msg string)                          { n.add("diag: " + msg) }
func (n *notes) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, s)
}

func (n *notes) text() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.lines, "\n")
}

func (n *notes) link(req []byte) transport.LinkOptions {
	return transport.LinkOptions{
		SubscriptionRequest: req, OnStatus: n.status, OnDiagnostic: n.diag,
		InitialBackoff: 20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
	}
}

func subscriptionRequest(version string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type": "subscription.request", "aaep_version": version, "subscriber_id": "test",
		"capabilities": map[string]any{"supports_confirmation_reply": true, "supported_conformance_levels": []int{1, 2, 3}},
	})
	return b
}

func loadScenarios(t *testing.T, names ...string) []producer.Scenario {
	t.Helper()
	all, err := producer.LoadScenarios(os.DirFS("../demo/scenarios"), ".")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := producer.SelectScenarios(all, names)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// message is the part of a frame the tests read.
type message struct {
	Type           string `json:"type"`
	SubscriptionID string `json:"subscription_id"`
	SessionID      string `json:"session_id"`
	Sequence       int    `json:"sequence_number"`
	ReplyToken     string `json:"reply_token"`
	Summary        string `json:"summary_normal"`
}

func recv(t *testing.T, c transport.Conn) (transport.Frame, message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := c.Recv(ctx)
	if err != nil {
		t.Fatalf("Recv: %v", err)
	}
	var m message
	if err := json.Unmarshal(f.Data, &m); err != nil {
		t.Fatalf("frame %q: %v", f.Data, err)
	}
	return f, m
}

func send(t *testing.T, c transport.Conn, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Send(ctx, b); err != nil {
		t.Fatalf("Send: %v", err)
	}
}

// endErr waits for the error that ends c.
func endErr(t *testing.T, c transport.Conn) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, err := c.Recv(ctx); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatal("the connection did not end")
			}
			return err
		}
	}
}

// session runs the confirm scenario over c: handshake, events in order, a
// reply with decision, a renegotiation and the close. It checks that the
// reply changed what the producer did next.
func session(t *testing.T, c transport.Conn, decision string) {
	t.Helper()
	f, m := recv(t, c)
	if f.Event != transport.EventHandshake || m.Type != "subscription.accepted" || m.SubscriptionID == "" {
		t.Fatalf("first frame %q (event %q), want the acceptance", f.Data, f.Event)
	}
	sub := m.SubscriptionID
	seq := -1
	replied := false
	var after []string
	for {
		_, m := recv(t, c)
		if m.Sequence != seq+1 {
			t.Errorf("%s: sequence %d after %d", m.Type, m.Sequence, seq)
		}
		seq = m.Sequence
		if replied {
			after = append(after, m.Summary)
		}
		if strings.HasSuffix(m.Type, "awaiting.confirmation") {
			send(t, c, map[string]any{
				"type": "confirmation.reply", "reply_token": m.ReplyToken, "decision": decision,
				"subscription_id": sub, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
			})
			replied = true
		}
		if strings.HasSuffix(m.Type, "session.completed") {
			break
		}
	}
	want := map[string]string{"accept": "You accepted", "reject": "No go-ahead"}[decision]
	if len(after) == 0 || !strings.Contains(after[0], want) {
		t.Errorf("after the %s reply the producer said %q, want %q first", decision, after, want)
	}
	// Renegotiate: the answer comes on the same connection, not as a
	// handshake frame.
	send(t, c, map[string]any{
		"type": "subscription.renegotiate", "subscription_id": sub,
		"capabilities": map[string]any{"max_events_per_second": 2},
	})
	f, m = recv(t, c)
	if f.Event == transport.EventHandshake || m.Type != "subscription.accepted" || !strings.Contains(string(f.Data), `"max_events_per_second":2`) {
		t.Errorf("renegotiation answer %s (event %q)", f.Data, f.Event)
	}
	send(t, c, map[string]any{
		"type": "subscription.close", "subscription_id": sub,
		"reason_code": "subscriber_shutdown", "reason_message": "test over",
	})
	if err := endErr(t, c); !errors.Is(err, io.EOF) {
		t.Errorf("after the close: %v, want io.EOF", err)
	}
}

func TestWebSocketEndToEnd(t *testing.T) {
	p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), Logf: t.Logf})
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	var n notes
	c, err := transport.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"),
		transport.Options{WebSocket: transport.WSOptions{LinkOptions: n.link(subscriptionRequest("1.0.0"))}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	session(t, c, "accept")
	if o := p.Outcomes(); len(o) != 1 || o[0].Resolution != producer.Accepted {
		t.Errorf("outcomes %+v", o)
	}
	if !strings.Contains(n.text(), "the subscription was closed cleanly") {
		t.Errorf("no close words in:\n%s", n.text())
	}
}

func TestUnixEndToEnd(t *testing.T) {
	for _, lp := range []bool{false, true} {
		t.Run(fmt.Sprintf("length-prefixed=%v", lp), func(t *testing.T) {
			p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), Logf: t.Logf})
			path := filepath.Join(t.TempDir(), "aaep", "demo.sock")
			ln, err := producer.ListenUnix(path)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- p.ServeUnix(ctx, ln) }()
			t.Cleanup(func() {
				cancel()
				p.Close()
				if err := <-done; err != nil {
					t.Error(err)
				}
			})
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("socket mode: %v %v", st.Mode(), err)
			}
			// Found by producer id under $XDG_RUNTIME_DIR/aaep.
			t.Setenv("XDG_RUNTIME_DIR", filepath.Dir(filepath.Dir(path)))
			var n notes
			c, err := transport.Dial(context.Background(), "unix:demo", transport.Options{
				Unix: transport.UnixOptions{LinkOptions: n.link(subscriptionRequest("1.0.0")), LengthPrefixed: lp},
			})
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

func stdioEndpoint(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "exec:" + exe + " -test.run=^$"
}

// child is the environment of a child producer; a race-enabled child must
// not linger a second at exit.
func child(mode string) []string {
	return []string{childEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}
}

func TestStdioEndToEnd(t *testing.T) {
	var n notes
	c, err := transport.Dial(context.Background(), stdioEndpoint(t), transport.Options{
		Stdio: transport.StdioOptions{LinkOptions: n.link(subscriptionRequest("1.0.0")), Env: child("serve")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	session(t, c, "accept")
	text := n.text()
	if !strings.Contains(text, "diag: Producer: demo producer starting") || strings.Contains(text, "\x1b") {
		t.Errorf("the producer's stderr is not shown clean:\n%q", text)
	}
	if !strings.Contains(text, "diag: Producer: producer: confirmation.reply") && !strings.Contains(text, "accepted") {
		t.Errorf("the producer's log of the reply is missing:\n%s", text)
	}
}

func TestStdioRejected(t *testing.T) {
	var n notes
	c, err := transport.Dial(context.Background(), stdioEndpoint(t), transport.Options{
		Stdio: transport.StdioOptions{LinkOptions: n.link(subscriptionRequest("2.0.0")), Env: child("serve")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	versionRejected(t, c)
}

// versionRejected checks that c's producer refused the subscription for its
// version, and that the connection then ended cleanly.
func versionRejected(t *testing.T, c transport.Conn) {
	t.Helper()
	f, m := recv(t, c)
	if f.Event != transport.EventHandshake || m.Type != "subscription.rejected" || !strings.Contains(string(f.Data), "version_unsupported") {
		t.Errorf("first frame %s (event %q)", f.Data, f.Event)
	}
	if err := endErr(t, c); !errors.Is(err, io.EOF) {
		t.Errorf("after the rejection: %v", err)
	}
}

func TestStdioCrash(t *testing.T) {
	var n notes
	c, err := transport.Dial(context.Background(), stdioEndpoint(t), transport.Options{
		Stdio: transport.StdioOptions{LinkOptions: n.link(subscriptionRequest("1.0.0")), Env: child("crash")},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = endErr(t, c)
	var ee *transport.ExitError
	if !errors.As(err, &ee) || ee.State != "exit status 3" || !strings.Contains(err.Error(), "panic: out of cheese") {
		t.Errorf("crash: %v", err)
	}
	if !strings.Contains(n.text(), "closed: The producer process failed: exit status 3.") {
		t.Errorf("statuses:\n%s", n.text())
	}
}

func TestStdioCloseKills(t *testing.T) {
	// "sleep" never reads its input nor exits by itself.
	c, err := transport.Dial(context.Background(), "exec:sleep 60", transport.Options{
		Stdio: transport.StdioOptions{KillWait: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
	if _, err := c.Recv(context.Background()); !errors.Is(err, transport.ErrClosed) {
		t.Errorf("Recv after Close: %v", err)
	}
}

// TestWebSocketProducerRestarts: the producer goes away in the middle of a
// session and another one comes up at the same address; the connection
// runs the handshake again with it.
func TestWebSocketProducerRestarts(t *testing.T) {
	serveAt := func(addr string) (*producer.Producer, *http.Server, string) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), Logf: t.Logf})
		srv := &http.Server{Handler: p}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { p.Close(); srv.Close() })
		return p, srv, ln.Addr().String()
	}
	first, srv, addr := serveAt("127.0.0.1:0")
	var n notes
	c, err := transport.Dial(context.Background(), "ws://"+addr, transport.Options{
		WebSocket: transport.WSOptions{LinkOptions: n.link(subscriptionRequest("1.0.0"))},
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
	srv.Close()
	serveAt(addr)
	f, m := recv(t, c)
	if f.Event != transport.EventHandshake || m.Type != "subscription.accepted" {
		t.Fatalf("after the restart: %s (event %q)", f.Data, f.Event)
	}
	if _, m := recv(t, c); !strings.HasSuffix(m.Type, "session.started") || m.Sequence != 0 {
		t.Errorf("the new producer's first event: %+v", m)
	}
	if text := n.text(); !strings.Contains(text, "reconnecting: The producer closed the connection: the producer is going away") {
		t.Errorf("statuses:\n%s", text)
	}
}
