package console

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// framesConn is a connection that brings its frames, then ends.
type framesConn struct{ frames chan []byte }

func (c framesConn) Recv(context.Context) (transport.Frame, error) {
	data, ok := <-c.frames
	if !ok {
		return transport.Frame{}, io.EOF
	}
	return transport.Frame{Data: data, At: time.Now()}, nil
}
func (framesConn) Send(context.Context, []byte) error { return nil }
func (framesConn) Close() error                       { return nil }

// An agent joined over a connection of the caller's is told by Drain, in
// the console's words, with nobody running the loop: the way a program
// that drives its clients itself (a capture played) uses the console.
func TestJoinedAgentToldByDrain(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	l := New(testConfig(false), line.NewWriter(&out, nil, line.WriterOptions{NoTime: true}))
	conn := framesConn{frames: make(chan []byte, 1)}
	conn.frames <- []byte(`{"@context":"` + protocol.ContextURL + `","aaep_version":"1.0.0","type":"session.started",` +
		`"event_id":"evt_1","session_id":"sess_1","timestamp":"2026-11-23T12:00:00Z","producer":{"agent_id":"a1","agent_name":"Mail"},` +
		`"urgency":"normal","summary_normal":"Sorting the inbox."}`)
	close(conn.frames)
	c := l.Join(AgentSpec{Endpoint: "file:capture"}, func(cfg subscriber.Config) *subscriber.Client {
		return subscriber.New(context.Background(), conn, "", cfg)
	}).Client()
	<-c.Done() // the frame told, then the end of the connection
	l.Drain()
	if got := out.String(); !strings.Contains(got, "Sorting the inbox.") {
		t.Fatalf("the event was not told:\n%s", got)
	}
	if !l.Ended() || l.Refused() {
		t.Fatalf("ended %v, refused %v once its only agent ended:\n%s", l.Ended(), l.Refused(), out.String())
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
