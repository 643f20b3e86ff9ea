package subscriber

import (
	"context"
	"fmt"
	"testing"

	"github.com/aaep-term/aaep-term/transport"
)

// idleConn delivers nothing until closed.
type idleConn struct{ closed chan struct{} }

func (c idleConn) Recv(ctx context.Context) (transport.Frame, error) {
	select {
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	case <-c.closed:
		return transport.Frame{}, transport.ErrClosed
	}
}
func (idleConn) Send(context.Context, []byte) error { return nil }
func (c idleConn) Close() error {
	select {
	case <-c.closed:
	default:
		close(c.closed)
	}
	return nil
}

// However many notes the transport gives while nobody reads (aaep-listen
// dropped them beyond 64), every one comes out, in order.
func TestNotesNeverDropped(t *testing.T) {
	c := New(context.Background(), idleConn{closed: make(chan struct{})}, "", Config{})
	defer c.Close()
	const n = 500
	for i := range n {
		c.addNote(note{text: fmt.Sprintf("problem %d", i), problem: true})
	}
	if err := c.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	got := 0
	for {
		b, err := c.NextBatch(done, 0)
		if err != nil {
			break
		}
		for _, u := range b {
			if u.Kind != KindDiagnostic {
				continue
			}
			if want := fmt.Sprintf("problem %d", got); u.Diagnostic.Message != want {
				t.Fatalf("diagnostic %q, want %q", u.Diagnostic.Message, want)
			}
			got++
		}
	}
	if got != n {
		t.Fatalf("%d of %d notes came out", got, n)
	}
}
