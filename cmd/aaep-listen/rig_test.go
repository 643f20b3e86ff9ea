package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// sayLog is an output that keeps every line the user would hear.
type sayLog struct{ lines []string }

func (o *sayLog) Announce(a announce.Announcement) error {
	o.lines = append(o.lines, a.Text)
	return nil
}
func (o *sayLog) Diagnostic(session.Diagnostic) error { return nil }
func (o *sayLog) Say(_ time.Time, s string) error     { o.lines = append(o.lines, s); return nil }
func (o *sayLog) Flush() error                        { return nil }

// replyLog is a connection the test feeds frames into and that keeps what
// the client sends.
type replyLog struct {
	mu      sync.Mutex
	sent    [][]byte
	down    bool
	in      chan transport.Frame
	entered chan struct{}
	back    bool // the reader is waiting in Recv for the next frame
}

func newReplyLog() *replyLog {
	return &replyLog{in: make(chan transport.Frame), entered: make(chan struct{})}
}

func (c *replyLog) Recv(ctx context.Context) (transport.Frame, error) {
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

func (c *replyLog) Send(_ context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down {
		return errors.New("connection refused")
	}
	c.sent = append(c.sent, append([]byte(nil), msg...))
	return nil
}

func (c *replyLog) Close() error { return nil }

// push hands frames to the client's reader and returns once it has taken
// them all (they wait for the client's owner goroutine).
func (c *replyLog) push(frames ...[]byte) {
	for _, f := range frames {
		if !c.back {
			<-c.entered
		}
		c.back = false
		c.in <- transport.Frame{Data: f, At: time.Now()}
	}
	<-c.entered
	c.back = true
}

// testRig is a listener over a client over a replyLog.
type testRig struct {
	*console.Listener
	c    *subscriber.Client // its one agent's
	t    testing.TB
	conn *replyLog
	wire func(*protocol.Event) []byte // how events go on the wire
}

// newRig is a listener of options o writing to out, over a replyLog.
func newRig(t testing.TB, o *options, out console.Output) *testRig {
	conn := newReplyLog()
	l := newListener(o, out)
	ctx, cancel := context.WithCancel(context.Background())
	spec := agentSpec{Endpoint: o.Endpoint, Terms: o.Terms}
	if len(o.Agents) > 0 {
		spec = o.agentSpecs()[0]
	}
	c := l.Join(spec, func(cfg subscriber.Config) *subscriber.Client { return subscriber.New(ctx, conn, "", cfg) }).Client()
	t.Cleanup(func() { cancel(); <-c.Done() })
	return &testRig{Listener: l, c: c, t: t, conn: conn, wire: func(ev *protocol.Event) []byte { return wireEvent(ev, false) }}
}

// testListener is a listener without a producer: what it says goes to
// out, what it sends to conn. autoReject turns --auto-reply reject on.
func testListener(t testing.TB, now time.Time, autoReject bool) (*testRig, *sayLog, *replyLog) {
	tio, _, _, _ := term.Test()
	o := &options{IO: tio, Verbosity: "normal", Now: func() time.Time { return now }}
	o.Sign.Off = true
	if autoReject {
		o.AutoReply = protocol.DecisionReject
	}
	out := &sayLog{}
	r := newRig(t, o, out)
	return r, out, r.conn
}

// handle feeds events to the client as one burst of frames, and tells
// what came of them.
func (r *testRig) handle(evs ...*protocol.Event) {
	frames := make([][]byte, len(evs))
	for i, ev := range evs {
		frames[i] = r.wire(ev)
	}
	resume, err := r.c.Pause(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	r.conn.push(frames...) // one burst
	resume()
	r.sync()
}

// sync lets the client handle what it was given and do what is due by its
// clock, and tells what came of it.
func (r *testRig) sync() {
	if err := r.c.Sync(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.drain()
}

// command carries out a typed line and tells what came of it.
func (r *testRig) command(ctx context.Context, s string) bool {
	quit := r.Listener.Command(ctx, s)
	r.drain()
	return quit
}

// drain tells every update waiting.
func (r *testRig) drain() { r.Drain() }

// payPrompt is confirmation id of agent, "Pay id.", with reply token tok.
func payPrompt(now time.Time, id, agent, tok string) *protocol.Event {
	return &protocol.Event{Type: protocol.TypeAwaitingConfirmation, EventID: id, SessionID: "sess_" + id,
		Producer: protocol.Producer{AgentID: agent}, Urgency: protocol.UrgencyCritical, Action: protocol.Text("Pay " + id + "."),
		Consequence: "Paid.", ReplyToken: tok, TimeoutSeconds: 60, DefaultDecision: "reject", Timestamp: now}
}

// wireEvent is ev as a producer sends it. With dupUndo, the irreversible
// flag comes a second time, saying the opposite.
func wireEvent(ev *protocol.Event, dupUndo bool) []byte {
	m := map[string]any{"@context": protocol.ContextURL, "aaep_version": "1.0.0", "type": ev.Type, "event_id": ev.EventID,
		"session_id": ev.SessionID, "timestamp": ev.Timestamp.Format(time.RFC3339Nano),
		"producer": map[string]string{"agent_id": ev.Producer.AgentID}, "urgency": string(ev.Urgency)}
	put := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	if ev.HasSeq {
		m["sequence_number"] = ev.Seq
	}
	put("tool", ev.Tool)
	put("risk_level", ev.RiskLevel)
	put("reversibility", ev.Reversibility)
	put("action", ev.Action.String())
	put("consequence", ev.Consequence.String())
	put("reply_token", ev.ReplyToken)
	put("default_decision", ev.DefaultDecision)
	put("from_state", ev.FromState)
	put("summary_normal", ev.SummaryNormal.String())
	put("question", ev.Question.String())
	put("tool_call_id", ev.ToolCallID)
	if ev.HasDefaultResponse {
		m["default_response"] = ev.DefaultResponse.String()
	}
	put("to_state", ev.ToState)
	if ev.TimeoutSeconds > 0 {
		m["timeout_seconds"] = ev.TimeoutSeconds
	}
	if ev.Irreversible != nil {
		m["irreversible"] = *ev.Irreversible
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err) // a map of strings, numbers and bools always marshals
	}
	if dupUndo && ev.Irreversible != nil {
		b = fmt.Appendf(b[:len(b)-1], `,"irreversible":%v}`, !*ev.Irreversible)
	}
	return b
}

// inOrder returns the first of want that text lacks, or has only before
// the one ahead of it; "" when text has them all in order.
func inOrder(text string, want []string) string {
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			return w
		}
		at += i + len(w)
	}
	return ""
}

func (c *replyLog) setDown(down bool) {
	c.mu.Lock()
	c.down = down
	c.mu.Unlock()
}

func (c *replyLog) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sent)
}

func (c *replyLog) sentSince(n int) [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.sent[n:]...)
}

// fakeClock is a clock the test moves; the client reads it on its own
// goroutine.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
