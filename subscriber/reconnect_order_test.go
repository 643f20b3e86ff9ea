package subscriber_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// dropListener remembers the connections it accepted, so a test can cut
// them all from the server's side, as a crashing proxy would.
type dropListener struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func (l *dropListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.conns = append(l.conns, c)
		l.mu.Unlock()
	}
	return c, err
}

// drop closes every connection accepted so far.
func (l *dropListener) drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}

// streamLog records, for each SSE stream the producer served, the event_ids
// it wrote, so a test knows which connection carried each event.
type streamLog struct {
	mu      sync.Mutex
	streams [][]string
	carried map[string][]int // event_id → the streams that carried it, in order
}

func (s *streamLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "events") {
			h.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		n := len(s.streams)
		s.streams = append(s.streams, nil)
		s.mu.Unlock()
		h.ServeHTTP(&idWriter{ResponseWriter: w, log: s, n: n}, r)
	})
}

// idWriter notes the event_id of every data line written through it.
type idWriter struct {
	http.ResponseWriter
	log  *streamLog
	n    int
	part []byte
}

func (w *idWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *idWriter) Write(p []byte) (int, error) {
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		line := w.part[:i]
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			var m struct {
				ID string `json:"event_id"`
			}
			if json.Unmarshal(data, &m) == nil && m.ID != "" {
				w.log.mu.Lock()
				w.log.streams[w.n] = append(w.log.streams[w.n], m.ID)
				w.log.carried[m.ID] = append(w.log.carried[m.ID], w.n)
				w.log.mu.Unlock()
			}
		}
		w.part = w.part[i+1:]
	}
	return w.ResponseWriter.Write(p)
}

// streamsOf names the streams that carried event id: "0", "0/1", or "?".
func (s *streamLog) streamsOf(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, n := range s.carried[id] {
		names = append(names, fmt.Sprint(n))
	}
	if names == nil {
		return "?"
	}
	return strings.Join(names, "/")
}

// A connection the producer's side drops in the middle of a stream, again
// and again: every time, the last events of the old connection come first,
// then "Connection lost; reconnecting", then "Connected", then (on a binding
// that subscribes on each connection) "Subscribed", then the events of the
// new connection. Nothing of the new connection comes before the lines
// that say it was made, and nothing of the old one after the line that
// says it was lost. Over SSE, where the test sees which stream carried
// each event, that is checked event by event. 10 runs × 5 drops per
// binding.
func TestReconnectOrderWithTheRealProducer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		layout     transport.Layout
		subscribes bool // every connection brings a subscription.accepted
		// serve starts p behind dl's listener and returns the endpoint.
		serve func(t *testing.T, p *producer.Producer, sl *streamLog, wrap func(net.Listener) net.Listener) string
	}{
		{name: "SSE, spec layout", layout: transport.LayoutSpec, serve: dropHTTP("http")},
		{name: "SSE, legacy layout", layout: transport.LayoutLegacy, serve: dropHTTP("http")},
		{name: "WebSocket", subscribes: true, serve: dropHTTP("ws")},
		{name: "Unix socket", subscribes: true, serve: func(t *testing.T, p *producer.Producer, _ *streamLog, wrap func(net.Listener) net.Listener) string {
			path := filepath.Join(t.TempDir(), "p.sock")
			ln, err := producer.ListenUnix(path)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() { _ = p.ServeUnix(ctx, wrap(ln)) }()
			t.Cleanup(func() { cancel(); ln.Close() })
			return "unix:" + path
		}},
		{name: "gRPC", subscribes: true, serve: func(t *testing.T, p *producer.Producer, _ *streamLog, wrap func(net.Listener) net.Listener) string {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			gs := p.GRPCServer()
			go func() { _ = gs.Serve(wrap(ln)) }()
			t.Cleanup(gs.Stop)
			return "grpc://" + ln.Addr().String()
		}},
	}
	const runs, drops = 10, 5
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for run := range runs {
				reconnectRun(t, run, drops, tc.layout, tc.subscribes, tc.serve)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// dropHTTP serves the producer over HTTP, noting each SSE stream's events;
// scheme "ws" names its WebSocket endpoint.
func dropHTTP(scheme string) func(t *testing.T, p *producer.Producer, sl *streamLog, wrap func(net.Listener) net.Listener) string {
	return func(t *testing.T, p *producer.Producer, sl *streamLog, wrap func(net.Listener) net.Listener) string {
		srv := httptest.NewUnstartedServer(sl.wrap(p))
		srv.Listener = wrap(srv.Listener)
		srv.Start()
		t.Cleanup(srv.Close)
		if scheme == "ws" {
			return "ws" + strings.TrimPrefix(srv.URL, "http") + protocol.PathWebSocket
		}
		return srv.URL
	}
}

func reconnectRun(t *testing.T, run, drops int, layout transport.Layout, subscribes bool,
	serve func(*testing.T, *producer.Producer, *streamLog, func(net.Listener) net.Listener) string) {
	t.Helper()
	happy := loadScenarios(t, "happy")
	var scen []producer.Scenario
	for range 200 {
		scen = append(scen, happy...)
	}
	// Events every few tenths of a millisecond: the connection is cut
	// while frames are on their way.
	p := producer.New(producer.Options{Scenarios: scen, Speed: 0.001})
	defer p.Close()
	sl := &streamLog{carried: map[string][]int{}}
	var dl *dropListener
	endpoint := serve(t, p, sl, func(ln net.Listener) net.Listener {
		dl = &dropListener{Listener: ln}
		return dl
	})
	cfg := subscriber.Config{
		Identity: session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
		Terms:    session.Terms{Verbosity: "normal"},
	}
	cfg.Transport.SSE.Layout = layout
	cfg.Transport.SSE.InitialBackoff = time.Millisecond
	cfg.Transport.SSE.MaxBackoff = 2 * time.Millisecond
	link := transport.LinkOptions{InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}
	cfg.Transport.WebSocket.LinkOptions = link
	cfg.Transport.Unix.LinkOptions = link
	cfg.Transport.GRPC.LinkOptions = link
	cfg.Transport.GRPCBinding = grpcbind.Binding{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := subscriber.Dial(ctx, endpoint, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// The updates, reduced to what the order is about: D and the streams
	// that carried it for a delivery of an event (D? when unknown), and
	// the connection's status lines.
	var got []string
	dropped, fresh, conns, cut := 0, 0, 0, 0
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("run %d: %v after %d updates", run, err, len(got))
		}
		switch {
		case u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusReconnecting:
			got = append(got, "R")
		case u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusConnected:
			got = append(got, "C")
			fresh, conns = 0, conns+1
		case u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusSubscribed:
			got = append(got, "S")
		case u.Kind == subscriber.KindDelivery && u.Delivery.Event != nil:
			got = append(got, "D"+sl.streamsOf(u.Delivery.Event.EventID))
			fresh++
		}
		if os.Getenv("ORDER_DEBUG") != "" && (u.Kind == subscriber.KindStatus || u.Kind == subscriber.KindDiagnostic) {
			t.Logf("%v %s %s", u.Status, u.Text, u.Diagnostic.Message)
		}
		if u.Kind == subscriber.KindEnd {
			t.Fatalf("run %d: ended: %s (%v) after %d updates", run, u.Text, u.Err, len(got))
		}
		if fresh >= 3 && cut < conns { // events flow on this connection: cut it, once
			if dropped == drops {
				break
			}
			dropped, cut = dropped+1, conns
			dl.drop()
		}
	}
	checkReconnectOrder(t, run, got, drops, subscribes, layout != transport.LayoutAuto)
}

// checkReconnectOrder checks got, the reduced updates of a run with drops
// reconnects: each R is followed at once by C (and S), and each delivery
// of stream n (when streams are known) falls between the n-th connection's
// lines and the n-th R.
func checkReconnectOrder(t *testing.T, run int, got []string, drops int, subscribes, streams bool) {
	t.Helper()
	want := "R C"
	if subscribes {
		want = "R C S"
	}
	full := strings.Join(got, " ")
	all := full // for messages: the end of it
	if len(all) > 600 {
		all = "…" + all[len(all)-600:]
	}
	if n := strings.Count(full, "R"); n != drops {
		t.Errorf("run %d: %d reconnecting lines, want %d: %s", run, n, drops, all)
	}
	if n := strings.Count(full, want); n != drops {
		t.Errorf("run %d: %q follows a drop %d times, want %d: %s", run, want, n, drops, all)
	}
	if !streams {
		return
	}
	conn, live := -1, false // the connection whose events may come now
	for i, g := range got {
		switch {
		case g == "C":
			conn, live = conn+1, true
		case g == "R":
			live = false // nothing more of this connection
		case strings.HasPrefix(g, "D"):
			if !live || !slices.Contains(strings.Split(g[1:], "/"), fmt.Sprint(conn)) {
				t.Errorf("run %d: update %d is an event of connection %s, told while connection %d is current (live %v): %s", run, i, g[1:], conn, live, all)
				return
			}
		}
	}
}
