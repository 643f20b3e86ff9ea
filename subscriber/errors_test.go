package subscriber_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// endOf reads c to its End and returns it with every update before.
func endOf(t *testing.T, c *subscriber.Client) (subscriber.Update, []subscriber.Update) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var all []subscriber.Update
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("%v before the End", err)
		}
		all = append(all, u)
		if u.Kind == subscriber.KindEnd {
			return u, all
		}
	}
}

// A refusal ends the run with a *RejectedError carrying the producer's
// code, message and wait; it is told once, in words, before the End.
func TestRejectedError(t *testing.T) {
	p := producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true,
		Refuse: &producer.Refusal{Code: "authorization_denied", Message: "Not you.", RetryAfter: -1}})
	t.Cleanup(func() { p.Close() })
	url := httpServe(t, p)
	c, err := subscriber.Dial(context.Background(), url, subscriber.Config{Identity: session.Identity{ID: "test"},
		Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	end, all := endOf(t, c)
	var rej *subscriber.RejectedError
	if !errors.As(end.Err, &rej) || rej.Code != "authorization_denied" || rej.Message != "Not you." || rej.Renegotiation {
		t.Fatalf("End error %#v, want the refusal", end.Err)
	}
	said := 0
	for _, u := range all {
		if u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusRejected {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the refusal was told %d times", said)
	}
}

// With Manifest.Require, a producer whose manifest is signed by a key not
// trusted is left: the subscription is closed and the End carries a
// *ManifestRefusedError.
func TestManifestRefusedError(t *testing.T) {
	key, err := producer.NewManifestKey("ES256")
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true, ManifestKey: key})
	t.Cleanup(func() { p.Close() })
	url := httpServe(t, p)
	c, err := subscriber.Dial(context.Background(), url, subscriber.Config{Identity: session.Identity{ID: "test"},
		Terms:     session.Terms{Verbosity: "normal"},
		Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}},
		Manifest:  subscriber.ManifestConfig{Require: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	end, _ := endOf(t, c)
	var mr *subscriber.ManifestRefusedError
	if !errors.As(end.Err, &mr) {
		t.Fatalf("End error %v, want a ManifestRefusedError", end.Err)
	}
	if !strings.Contains(end.Text, "manifest did not verify") {
		t.Errorf("End says %q", end.Text)
	}
}

// A connection that cannot be made ends Dial with the error, and the
// client's updates still say what was tried, then the End with the same
// error.
func TestDialFailure(t *testing.T) {
	c, err := subscriber.Dial(context.Background(), "http://127.0.0.1:1", subscriber.Config{})
	if err == nil {
		t.Fatal("Dial to a closed port succeeded")
	}
	end, all := endOf(t, c)
	if all[0].Status != subscriber.StatusConnecting || !errors.Is(end.Err, errors.Unwrap(err)) && end.Err != err {
		t.Errorf("first %q, end error %v, Dial error %v", all[0].Text, end.Err, err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}

// A reader far behind loses nothing: the client stops reading frames while
// thousands of updates wait, and every event still comes out, once.
func TestSlowReaderLosesNothing(t *testing.T) {
	const n = 20000 // several times what may wait
	c := subscriber.New(context.Background(), &corpusConn{evs: corpus(1<<12, 64, 0), n: n}, "", subscriber.Config{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events := 0
	for {
		u, err := c.Next(ctx) // one at a time: the slowest reader
		if err != nil {
			break
		}
		if u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent {
			events++
		}
	}
	if events != n {
		t.Fatalf("%d events of %d came out", events, n)
	}
}

// A file of events is read through the same client: no subscription, the
// events in order, and the end said once in the End.
func TestFileEndpoint(t *testing.T) {
	path := t.TempDir() + "/events.jsonl"
	if err := os.WriteFile(path, append(bytes.Join(corpus(50, 3, 0), []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := subscriber.Dial(context.Background(), path, subscriber.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	end, all := endOf(t, c)
	events := 0
	for _, u := range all {
		if u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent {
			events++
		}
		if u.Kind == subscriber.KindStatus && (strings.Contains(u.Text, "reconnecting") || strings.Contains(u.Text, "Connection closed")) {
			t.Errorf("a file's end told as a lost connection: %q", u.Text)
		}
	}
	if events != 50 || end.Err != nil || end.Text == "" {
		t.Errorf("%d events, End %q (error %v)", events, end.Text, end.Err)
	}
	if err := c.Renegotiate(context.Background(), protocol.Capabilities{}); !errors.Is(err, subscriber.ErrClosed) {
		t.Errorf("after the end: %v", err)
	}
}

// A prompt the reader has not been shown cannot be answered: Confirm waits
// for the update offering it to be taken from Next.
func TestUnshownPromptCannotBeAnswered(t *testing.T) {
	now := time.Now().UTC().Format(time.RFC3339)
	prompt := fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.awaiting.confirmation","action":"Pay.","consequence":"Paid.","risk_level":"low","irreversible":false,"reply_token":"rpl_1","timeout_seconds":300,"default_decision":"reject","summary_normal":"Pay?","event_id":"evt_0000000000000001","session_id":"sess_000000000001","timestamp":"%s","producer":{"agent_id":"a"},"urgency":"critical"}`, now)
	conn := &oneFrameConn{frame: prompt, taken: make(chan struct{}), closed: make(chan struct{})}
	ctx := context.Background()
	c := subscriber.New(ctx, conn, "", subscriber.Config{Terms: session.Terms{CanConfirm: true}})
	defer c.Close()
	<-conn.taken
	if err := c.Sync(ctx); err != nil { // handled by the client, not yet read
		t.Fatal(err)
	}
	if err := c.WhyNot(ctx, 1); err == nil {
		t.Fatal("prompt 1 is answerable before it was read")
	}
	if err := c.Confirm(ctx, 1, "accept"); !errors.Is(err, subscriber.ErrUnknownPrompt) {
		t.Fatalf("Confirm before the prompt was read: %v, want ErrUnknownPrompt", err)
	}
	if len(c.Pending()) != 0 {
		t.Fatalf("Pending lists a prompt not read: %v", c.Pending())
	}
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil {
			break
		}
	}
	if err := c.Confirm(ctx, 1, "accept"); err != nil {
		t.Fatalf("Confirm once read: %v", err)
	}
}

// oneFrameConn delivers one frame, then nothing until closed.
type oneFrameConn struct {
	frame  []byte
	taken  chan struct{} // closed once the frame was taken and Recv called again
	closed chan struct{}
	n      int
}

func (c *oneFrameConn) Recv(ctx context.Context) (transport.Frame, error) {
	c.n++
	if c.n == 1 {
		return transport.Frame{Data: c.frame, At: time.Now()}, nil
	}
	if c.n == 2 {
		close(c.taken)
	}
	select {
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	case <-c.closed:
		return transport.Frame{}, transport.ErrClosed
	}
}
func (c *oneFrameConn) Send(context.Context, []byte) error { return nil }
func (c *oneFrameConn) Close() error {
	select {
	case <-c.closed:
	default:
		close(c.closed)
	}
	return nil
}
