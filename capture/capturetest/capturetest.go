// Package capturetest holds what the tests of recordings share: reading a
// capture file whole, and the demo producer on loopback with prompts that
// wait long enough for an automatic reply.
package capturetest

import (
	"bytes"
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// ReadAll reads every record of the capture at path; the reader is closed
// when the test ends.
func ReadAll(t testing.TB, path string) (*capture.Reader, []capture.Record) {
	t.Helper()
	r, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	recs, err := r.Records()
	if err != nil {
		t.Fatal(err)
	}
	return r, recs
}

// PromptingProducer serves the demo producer on loopback, every scenario
// at once, with prompts that wait 3 s for a reply: time enough for an
// automatic one to settle them. It is closed when the test ends.
func PromptingProducer(t testing.TB) (*producer.Producer, string) {
	t.Helper()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: all, Speed: 0, EndWhenDone: true, PromptTimeout: 3 * time.Second})
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	return p, srv.URL
}

// LiveProducer serves opts on addr ("" for any loopback port), the demo
// scenarios all at once when opts names neither scenarios nor a replay,
// and stays open when they are done. It is closed when the test ends.
func LiveProducer(t testing.TB, addr string, opts producer.Options) *httptest.Server {
	t.Helper()
	if opts.Scenarios == nil && opts.Replay == nil {
		all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
		if err != nil {
			t.Fatal(err)
		}
		opts.Scenarios = all
	}
	p := producer.New(opts)
	srv := httptest.NewUnstartedServer(p)
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		p.Close()
		srv.Close()
	})
	return srv
}

// Watch is an output (standard error) that tells waiters when a text has
// been written.
type Watch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced at every write
}

// NewWatch returns an empty Watch.
func NewWatch() *Watch { return &Watch{changed: make(chan struct{})} }

func (w *Watch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.changed)
	w.changed = make(chan struct{})
	return w.buf.Write(p)
}

func (w *Watch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// Wait waits until text has been written n times in all, or fails the
// test when ctx ends first.
func (w *Watch) Wait(t testing.TB, ctx context.Context, text string, n int) {
	t.Helper()
	for {
		w.mu.Lock()
		got, changed := strings.Count(w.buf.String(), text), w.changed
		w.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waited in vain for %q (%d times) on standard error:\n%s", text, n, w.String())
		}
	}
}

// Sent collects what subscribers send a producer (its On is
// producer.Options.OnMessage).
type Sent struct {
	mu   sync.Mutex
	msgs [][]byte
}

// On keeps msg.
func (s *Sent) On(_ string, msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, bytes.Clone(msg))
}

// OfType returns the messages of type typ sent so far.
func (s *Sent) OfType(typ string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]byte
	for _, m := range s.msgs {
		if protocol.PeekType(m) == typ {
			out = append(out, m)
		}
	}
	return out
}

// ClosedEndpoint is an http:// endpoint on a loopback port that nothing
// listens on any more: dialling it is refused.
func ClosedEndpoint(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	return "http://" + ln.Addr().String()
}

// DemoProducer is the demo producer playing every scenario at once,
// without pauses, its prompts timing out after 50 ms; quirks plays them as
// the deployed layout's producers do (no handshake).
func DemoProducer(t testing.TB, quirks bool) *producer.Producer {
	t.Helper()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	return producer.New(producer.Options{Scenarios: all, Speed: 0, Quirks: quirks, EndWhenDone: true,
		PromptTimeout: 50 * time.Millisecond})
}

// StartDemo serves DemoProducer on loopback over HTTP and returns its URL.
// It is closed when the test ends.
func StartDemo(t testing.TB, quirks bool) string {
	t.Helper()
	p := DemoProducer(t, quirks)
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		p.Close()
		srv.Close()
	})
	return srv.URL
}

// StartDemoGRPC serves DemoProducer on loopback over gRPC and returns its
// grpc:// endpoint. It is closed when the test ends.
func StartDemoGRPC(t testing.TB) string {
	t.Helper()
	p := DemoProducer(t, false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := p.GRPCServer()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		p.Close()
		srv.Stop()
	})
	return "grpc://" + ln.Addr().String()
}
