package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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
	once   sync.Once
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
func (p *pipeLink) Close()                                    { p.once.Do(func() { close(p.closed) }) }

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

// Problems told while Dial runs (a bridged agent's standard error as it
// starts) never make Dial wait for a Recv nobody can call yet: Dial
// returns, the first ones are said in order, before "connected", and how
// many were left out is said once. (Dial hung at the 64th before.)
func TestDialLinkProblemsWhileDialing(t *testing.T) {
	t.Parallel()
	const told = 3 * dialBacklog
	p := &pipeLink{in: make(chan []byte, 1), wrote: make(chan []byte, 1), closed: make(chan struct{})}
	dialed := make(chan error, 1)
	var c Conn
	go func() {
		var err error
		c, err = DialLink(context.Background(), "test", func(_ context.Context, diag func(string)) (Link, error) {
			for i := range told {
				diag(fmt.Sprintf("line %d", i))
			}
			return p, nil
		}, LinkOptions{InBand: true})
		dialed <- err
	}()
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute)
	}
	guard := time.NewTimer(time.Until(deadline) / 2)
	defer guard.Stop()
	select {
	case err := <-dialed:
		if err != nil {
			t.Fatal(err)
		}
	case <-guard.C:
		t.Fatal("Dial never returned")
	}
	defer c.Close()
	var want []string
	want = append(want, "status connecting")
	for i := range dialBacklog - 1 { // "connecting" took one place
		want = append(want, fmt.Sprintf("problem line %d", i))
	}
	want = append(want, "status connected",
		fmt.Sprintf("problem %d more problems were reported while connecting; they are not shown.", told-dialBacklog+1))
	var got []string
	for len(got) < len(want) {
		f, err := c.Recv(context.Background())
		if err != nil {
			t.Fatalf("after %d notes: %v", len(got), err)
		}
		switch n := f.Note; {
		case n == nil:
			t.Fatalf("a frame %q among the notes", f.Data)
		case n.Problem:
			got = append(got, "problem "+n.Text)
		default:
			got = append(got, "status "+n.Status.String())
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
