package subscriber_test

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// burstConn has every frame waiting from the start, and counts how the
// client takes them: by Recv, a frame a call, or by RecvBatch, all it asks
// for at once.
type burstConn struct {
	mu      sync.Mutex
	frames  [][]byte
	next    int
	recvs   int // calls of Recv
	batches int // calls of RecvBatch
}

func (c *burstConn) Recv(context.Context) (transport.Frame, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recvs++
	if c.next == len(c.frames) {
		return transport.Frame{}, io.EOF
	}
	c.next++
	return transport.Frame{Data: c.frames[c.next-1], At: time.Now()}, nil
}

func (c *burstConn) RecvBatch(_ context.Context, dst []transport.Frame, limit int) ([]transport.Frame, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches++
	if c.next == len(c.frames) {
		return dst, io.EOF
	}
	for ; c.next < len(c.frames) && limit > 0; limit-- {
		dst = append(dst, transport.Frame{Data: c.frames[c.next], At: time.Now()})
		c.next++
	}
	return dst, nil
}

func (c *burstConn) Send(context.Context, []byte) error { return nil }
func (c *burstConn) Close() error                       { return nil }

// A client takes what its connection has received as one burst, one
// hand-off for many frames, and delivers every event of it in order: it
// called Recv once a frame before.
func TestClientTakesABurstAtOnce(t *testing.T) {
	t.Parallel()
	const n = 640
	conn := &burstConn{frames: corpus(n, 8, 0)}
	c := subscriber.New(context.Background(), conn, "", subscriber.Config{})
	var ids []string
	for {
		batch, err := c.NextBatch(context.Background(), 0)
		if err != nil {
			break
		}
		for _, u := range batch {
			if u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent {
				ids = append(ids, u.Delivery.Event.EventID)
			}
			if u.Kind == subscriber.KindEnd && u.Err != nil {
				t.Fatal(u.Err)
			}
		}
	}
	if len(ids) != n {
		t.Fatalf("%d events delivered, want %d", len(ids), n)
	}
	want := corpusIDs(t, conn.frames)
	for i := range ids {
		if ids[i] != want[i] {
			t.Fatalf("event %d is %s, want %s: not in the order received", i, ids[i], want[i])
		}
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if conn.recvs != 0 || conn.batches > n/8 {
		t.Fatalf("%d frames taken by %d calls of Recv and %d of RecvBatch, want none of Recv and at most %d of RecvBatch", n, conn.recvs, conn.batches, n/8)
	}
}

// corpusIDs returns the event ID of every frame, in order.
func corpusIDs(t *testing.T, frames [][]byte) []string {
	t.Helper()
	ids := make([]string, len(frames))
	for i, f := range frames {
		_, rest, ok := bytes.Cut(f, []byte(`"event_id":"`))
		id, _, ok2 := bytes.Cut(rest, []byte(`"`))
		if !ok || !ok2 {
			t.Fatalf("frame %d has no event_id", i)
		}
		ids[i] = string(id)
	}
	return ids
}
