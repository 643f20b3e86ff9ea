package subscriber_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// scriptConn gives the frames the test pushes and keeps what is sent.
// Each Recv says on calls that the reader came for a frame: once it came
// back after a frame, that frame is queued in the client.
type scriptConn struct {
	in     chan []byte
	calls  chan struct{}
	closed chan struct{}
	once   sync.Once
	mu     sync.Mutex
	sent   [][]byte
}

func newScriptConn() *scriptConn {
	return &scriptConn{in: make(chan []byte), calls: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (c *scriptConn) Recv(ctx context.Context) (transport.Frame, error) {
	select {
	case c.calls <- struct{}{}:
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	case <-c.closed:
		return transport.Frame{}, transport.ErrClosed
	}
	select {
	case b := <-c.in:
		return transport.Frame{Data: b, At: time.Now()}, nil
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	case <-c.closed:
		return transport.Frame{}, transport.ErrClosed
	}
}

func (c *scriptConn) Send(_ context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, append([]byte(nil), msg...))
	return nil
}

func (c *scriptConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *scriptConn) messages() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]any
	for _, b := range c.sent {
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// CannotAnswer before the producer accepted the subscription sends
// nothing yet (there is no subscription to change), and asks as soon as
// the acceptance is handled: a renegotiation of both reply capabilities
// to false, never a reply.
func TestCannotAnswerWaitsForTheSubscription(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn := newScriptConn()
	c := subscriber.New(ctx, conn, "", subscriber.Config{
		Identity: session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
		Terms:    session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
	})
	defer c.Close()
	if err := c.CannotAnswer(ctx); err != nil {
		t.Fatalf("CannotAnswer before the subscription: %v", err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if m := conn.messages(); len(m) != 0 {
		t.Fatalf("sent %v before any subscription was accepted", m)
	}
	<-conn.calls // the reader waits for the first frame
	select {
	case conn.in <- []byte(`{"type":"subscription.accepted","subscription_id":"sub_1","aaep_version":"1.0.0",` +
		`"producer":{"agent_id":"a"},"honored_capabilities":{"supports_confirmation_reply":true,"supports_clarification_reply":true}}`):
	case <-ctx.Done():
		t.Fatal("the client never read the acceptance")
	}
	<-conn.calls // back for the next: the acceptance is queued
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	msgs := conn.messages()
	if len(msgs) != 1 || msgs[0]["type"] != "subscription.renegotiate" {
		t.Fatalf("sent %v; want one subscription.renegotiate", msgs)
	}
	caps, _ := msgs[0]["capabilities"].(map[string]any)
	if caps == nil {
		caps, _ = msgs[0]["requested_changes"].(map[string]any)
	}
	for _, k := range []string{"supports_confirmation_reply", "supports_clarification_reply"} {
		if v, ok := caps[k].(bool); !ok || v {
			t.Errorf("%s = %v in %v; want false", k, caps[k], msgs[0])
		}
	}
	if terms := c.Terms(); !terms.Pending {
		t.Errorf("the change is not waiting for the producer's answer: %+v", terms)
	}
}
