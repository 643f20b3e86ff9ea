package subscriber_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// childProducerEnv makes the test binary a stdio producer (see TestMain).
const childProducerEnv = "AAEP_SUBSCRIBER_TEST_STDIO_PRODUCER"

// childTasks in childProducerEnv makes the child serve refusingLive.
const childTasks = "tasks"

func TestMain(m *testing.M) {
	if child := os.Getenv(childProducerEnv); child != "" {
		opts := producer.Options{Scenarios: loadScenarios(nil, "confirm")}
		if child == childTasks {
			opts = producer.Options{Live: refusingLive(nil)}
		}
		p := producer.New(opts)
		err := p.ServeStdio(context.Background(), os.Stdin, os.Stdout)
		p.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func loadScenarios(t testing.TB, names ...string) []producer.Scenario {
	all, err := producer.LoadScenarios(os.DirFS("../demo"), "scenarios")
	if err == nil {
		all, err = producer.SelectScenarios(all, names)
	}
	if err != nil {
		if t == nil {
			panic(err)
		}
		t.Fatal(err)
	}
	return all
}

// binding is one way to reach the real producer.
type binding struct {
	name   string
	layout transport.Layout
	// serve starts p and returns the endpoint.
	serve func(t *testing.T, p *producer.Producer) string
	// negotiates: the binding has a subscription handshake.
	negotiates bool
}

func httpServe(t *testing.T, p *producer.Producer) string {
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

var bindings = []binding{
	{name: "SSE, spec layout", layout: transport.LayoutSpec, serve: httpServe, negotiates: true},
	{name: "SSE, legacy layout", layout: transport.LayoutLegacy, serve: httpServe},
	{name: "WebSocket", negotiates: true, serve: func(t *testing.T, p *producer.Producer) string {
		return "ws" + strings.TrimPrefix(httpServe(t, p), "http") + protocol.PathWebSocket
	}},
	{name: "Unix socket", negotiates: true, serve: func(t *testing.T, p *producer.Producer) string {
		path := filepath.Join(t.TempDir(), "p.sock")
		ln, err := producer.ListenUnix(path)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { _ = p.ServeUnix(ctx, ln) }()
		t.Cleanup(func() { cancel(); ln.Close() })
		return "unix:" + path
	}},
	{name: "gRPC", negotiates: true, serve: func(t *testing.T, p *producer.Producer) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		gs := p.GRPCServer()
		go func() { _ = gs.Serve(ln) }()
		t.Cleanup(gs.Stop)
		return "grpc://" + ln.Addr().String()
	}},
	{name: "stdio", negotiates: true, serve: func(t *testing.T, _ *producer.Producer) string {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv(childProducerEnv, "1")
		return "exec:" + exe + " -test.run=^$"
	}},
}

// Over every binding: subscribe, receive the events in order, renegotiate,
// answer the prompt, and close; the End comes last, once.
func TestEveryBinding(t *testing.T) {
	for _, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			// The producer stays after its scenario (and so does the stdio
			// child, TestMain): answering again must meet a settled
			// prompt, not a client the producer's end has ended already.
			p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm")})
			t.Cleanup(func() { p.Close() })
			endpoint := b.serve(t, p)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var taps []subscriber.Direction
			c, err := subscriber.Dial(ctx, endpoint, subscriber.Config{
				Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
				Terms:     session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
				Transport: transport.Options{SSE: transport.SSEOptions{Layout: b.layout}, GRPCBinding: grpcbind.Binding{}},
				Tap:       func(d subscriber.Direction, _ []byte, _ time.Time) { taps = append(taps, d) },
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s := &stream{t: t, c: c, ctx: ctx}
			if first := s.next(); first.Kind != subscriber.KindStatus || first.Status != subscriber.StatusConnecting {
				t.Fatalf("first update %v %q, want Connecting", first.Kind, first.Text)
			}
			prompt := s.until(func(u subscriber.Update) bool {
				return u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Kind == session.KindEvent
			}).Delivery.Prompt
			if b.negotiates {
				if err := c.Renegotiate(ctx, protocol.Capabilities{MaxEventsPerSecond: 50}); err != nil {
					t.Fatal(err)
				}
				s.until(func(u subscriber.Update) bool {
					return u.Kind == subscriber.KindStatus && strings.HasPrefix(u.Text, "The producer accepted the new terms")
				})
				if got := c.Terms().Requested.MaxEventsPerSecond; got != 50 {
					t.Errorf("requested rate %d after the renegotiation, want 50", got)
				}
			} else if err := c.Renegotiate(ctx, protocol.Capabilities{MaxEventsPerSecond: 50}); !errors.Is(err, subscriber.ErrNoSubscription) {
				t.Errorf("renegotiating without a subscription: %v, want ErrNoSubscription", err)
			}
			if err := c.Confirm(ctx, prompt.Number, protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
			if r := s.until(func(u subscriber.Update) bool { return u.Kind == subscriber.KindReply }).Reply; r.Err != nil || r.Decision != "accept" {
				t.Fatalf("reply %+v", r)
			}
			s.until(func(u subscriber.Update) bool {
				return u.Kind == subscriber.KindDelivery && u.Delivery.Event != nil && strings.Contains(u.Delivery.Event.SummaryNormal.String(), "You accepted")
			})
			var pe *subscriber.PromptError
			if err := c.Confirm(ctx, prompt.Number, protocol.DecisionAccept); !errors.As(err, &pe) || !errors.Is(err, subscriber.ErrSettled) {
				t.Errorf("answering again: %v, want a PromptError for a settled prompt", err)
			}
			c.Close()
			s.drain()
			if s.ends != 1 {
				t.Errorf("%d End updates, want 1", s.ends)
			}
			if err := c.Confirm(ctx, prompt.Number, protocol.DecisionAccept); !errors.Is(err, subscriber.ErrClosed) {
				t.Errorf("after the end: %v, want ErrClosed", err)
			}
			// The subscription request comes first, where its answer
			// arrived; without a handshake, the first frame received.
			first := subscriber.Received
			if b.negotiates {
				first = subscriber.Sent
			}
			if len(taps) < 2 || taps[0] != first || taps[1] != subscriber.Received {
				t.Errorf("the tap saw %d frames, first %q", len(taps), taps)
			}
			sent := 0
			for _, d := range taps {
				if d == subscriber.Sent {
					sent++
				}
			}
			if sent == 0 {
				t.Errorf("the tap saw nothing sent")
			}
		})
	}
}

// stream reads a client's updates and checks, as it goes, that each
// session's events come in sequence order.
type stream struct {
	t    *testing.T
	c    *subscriber.Client
	ctx  context.Context
	seq  map[string]int64
	ends int
	log  []string
}

func (s *stream) next() subscriber.Update {
	s.t.Helper()
	u, err := s.c.Next(s.ctx)
	if err != nil {
		s.t.Fatalf("%v after:\n%s", err, strings.Join(s.log, "\n"))
	}
	s.check(u)
	return u
}

func (s *stream) check(u subscriber.Update) {
	s.log = append(s.log, fmt.Sprintf("%v %v %s", u.Kind, u.Status, u.Text))
	if u.Kind == subscriber.KindEnd {
		s.ends++
	}
	if s.ends > 0 && u.Kind != subscriber.KindEnd {
		s.t.Errorf("%v update after the End", u.Kind)
	}
	ev := u.Delivery.Event
	if u.Kind != subscriber.KindDelivery || u.Delivery.Kind != session.KindEvent || ev == nil || !ev.HasSeq {
		return
	}
	if s.seq == nil {
		s.seq = map[string]int64{}
	}
	if last, ok := s.seq[ev.SessionID]; ok && ev.Seq <= last {
		s.t.Errorf("session %s: event %d after %d", ev.SessionID, ev.Seq, last)
	}
	s.seq[ev.SessionID] = ev.Seq
}

func (s *stream) until(f func(subscriber.Update) bool) subscriber.Update {
	s.t.Helper()
	for {
		if u := s.next(); f(u) {
			return u
		}
	}
}

func (s *stream) drain() {
	for {
		u, err := s.c.Next(s.ctx)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			s.t.Fatal(err)
		}
		s.check(u)
	}
}
