package transport

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// An acp: endpoint needs the program's bridge: without one Dial says so;
// with one, it gets the command's words and the handshake to send.
func TestDialACP(t *testing.T) {
	t.Parallel()
	_, err := Dial(context.Background(), "acp:gemini --acp", Options{})
	if err == nil || !strings.Contains(err.Error(), "no ACP bridge") {
		t.Fatalf("Dial without a bridge: %v", err)
	}
	var argv []string
	var lo LinkOptions
	opts := Options{ACP: func(_ context.Context, a []string, o LinkOptions) (Conn, error) {
		argv, lo = a, o
		return nil, errors.New("not today")
	}}
	opts.SSE.SubscriptionRequest = []byte(`{"type":"subscription.request"}`)
	_, err = Dial(context.Background(), `acp:'my agent' --acp`, opts)
	if err == nil || err.Error() != "not today" {
		t.Fatalf("Dial's error %v", err)
	}
	if strings.Join(argv, "|") != "my agent|--acp" || string(lo.SubscriptionRequest) != `{"type":"subscription.request"}` {
		t.Errorf("the bridge got %q and %q", argv, lo.SubscriptionRequest)
	}
}

// pipeLink is a Link fed by a channel.
type pipeLink struct {
	in     chan []byte
	wrote  chan []byte
	closed chan struct{}
}

func (p *pipeLink) Read() ([]byte, error) {
	select {
	case m, ok := <-p.in:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *pipeLink) Write(_ context.Context, msg []byte) error { p.wrote <- msg; return nil }
func (p *pipeLink) Close()                                    { close(p.closed) }

// DialLink sends the subscription request first, passes the answer up as
// the handshake, then the messages, and ends cleanly when the link does.
func TestDialLink(t *testing.T) {
	t.Parallel()
	p := &pipeLink{in: make(chan []byte, 2), wrote: make(chan []byte, 1), closed: make(chan struct{})}
	c, err := DialLink(context.Background(), "test", func(context.Context, func(string)) (Link, error) { return p, nil },
		LinkOptions{SubscriptionRequest: []byte(`{"type":"subscription.request"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := string(<-p.wrote); got != `{"type":"subscription.request"}` {
		t.Fatalf("first message %s", got)
	}
	p.in <- []byte(`{"type":"subscription.accepted"}`)
	p.in <- []byte(`{"type":"aaep:agent.session.started"}`)
	close(p.in)
	f, err := c.Recv(context.Background())
	if err != nil || f.Event != EventHandshake {
		t.Fatalf("first frame %+v, %v", f, err)
	}
	if f, err = c.Recv(context.Background()); err != nil || !strings.Contains(string(f.Data), "session.started") {
		t.Fatalf("second frame %s, %v", f.Data, err)
	}
	if _, err = c.Recv(context.Background()); !errors.Is(err, io.EOF) || EndReasonOf(c, err) != EndNormal {
		t.Fatalf("the end: %v", err)
	}
}
