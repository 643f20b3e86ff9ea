package console

import (
	"context"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// feedConn is a connection that brings the frames the test hands it;
// entered tells each time the client's reader asks for the next.
type feedConn struct {
	in      chan transport.Frame
	entered chan struct{}
}

func (c feedConn) Recv(ctx context.Context) (transport.Frame, error) {
	select {
	case c.entered <- struct{}{}:
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	}
	select {
	case f := <-c.in:
		return f, nil
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	}
}
func (feedConn) Send(context.Context, []byte) error { return nil }
func (feedConn) Close() error                       { return nil }

// An agent joined over a connection of the caller's is told by Drain, in
// the console's words, with nobody running the loop: the way a program
// that drives its clients itself (a capture played) uses the console.
func TestJoinedAgentToldByDrain(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	l := New(testConfig(false), line.NewWriter(&out, nil, line.WriterOptions{NoTime: true}))
	conn := feedConn{in: make(chan transport.Frame), entered: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := l.Join(AgentSpec{Endpoint: "file:capture"}, func(cfg subscriber.Config) *subscriber.Client {
		return subscriber.New(ctx, conn, "", cfg)
	}).Client()
	defer func() { cancel(); <-c.Done() }()
	<-conn.entered
	conn.in <- transport.Frame{Data: []byte(`{"@context":"` + protocol.ContextURL + `","aaep_version":"1.0.0","type":"session.started",` +
		`"event_id":"evt_1","session_id":"sess_1","timestamp":"2026-11-23T12:00:00Z","producer":{"agent_id":"a1","agent_name":"Mail"},` +
		`"urgency":"normal","summary_normal":"Sorting the inbox."}`)}
	<-conn.entered // the frame waits for the client's owner
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	l.Drain()
	if got := out.String(); !strings.Contains(got, "Sorting the inbox.") {
		t.Fatalf("the event was not told:\n%s", got)
	}
	if l.Ended() || l.Refused() {
		t.Fatalf("ended %v, refused %v with the agent still running", l.Ended(), l.Refused())
	}
}

// With standard input closed from the start and nothing else to answer,
// every agent joined afterwards asks the producer as unable to answer;
// with rules that answer (--policy, --auto-reply), it still asks to.
func TestInputClosedAtStartAgentsCannotAnswer(t *testing.T) {
	t.Parallel()
	for _, rules := range []bool{false, true} {
		cfg := testConfig(false)
		cfg.IO.In = nil // nobody can type
		cfg.RulesAnswer = rules
		l := New(cfg, line.NewWriter(&strings.Builder{}, nil, line.WriterOptions{NoTime: true}))
		l.InputAtStart(false)
		ctx, cancel := context.WithCancel(context.Background())
		c := l.Join(AgentSpec{Endpoint: "http://127.0.0.1:1", Terms: cfg.Terms}, func(cfg subscriber.Config) *subscriber.Client {
			return subscriber.New(ctx, idleConn{}, "", cfg)
		}).Client()
		a := l.agents()[0]
		if a.terms.CanConfirm == !rules || a.terms.CanClarify == !rules {
			t.Errorf("rules %v: the agent asks to confirm %v, to clarify %v", rules, a.terms.CanConfirm, a.terms.CanClarify)
		}
		cancel()
		<-c.Done()
	}
}
