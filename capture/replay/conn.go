// conn.go: the capture as a transport.Conn, stepped by a player, so that
// the one subscriber client (subscriber.New) handles it as it would have live.

package replay

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aaep-term/aaep-term/transport"
)

// Conn is a transport.Conn whose frames are the received records of a
// capture, handed over one at a time by the player. The player knows when
// the client's reading goroutine has taken every frame it was handed: that
// goroutine is back in Recv (ready), having queued the frame before.
// What the client sends (a subscription.close at the end, a renegotiation
// the recording made) goes nowhere: there is no producer to tell.
type Conn struct {
	ready  chan struct{}        // Recv waits for a frame
	frames chan transport.Frame // the frame handed over
	closed chan struct{}
	once   sync.Once
	// waiting is set when the player took ready and has not yet handed a
	// frame; only the player's goroutine uses it.
	waiting bool
}

// NewConn returns a Conn with no frame handed over yet.
func NewConn() *Conn {
	return &Conn{ready: make(chan struct{}), frames: make(chan transport.Frame), closed: make(chan struct{})}
}

// Recv implements transport.Conn: the next frame the player hands over;
// io.EOF once the capture is closed.
func (k *Conn) Recv(ctx context.Context) (transport.Frame, error) {
	select {
	case k.ready <- struct{}{}:
	case <-k.closed:
		return transport.Frame{}, io.EOF
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	}
	select {
	case f := <-k.frames:
		return f, nil
	case <-k.closed:
		return transport.Frame{}, io.EOF
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	}
}

// Send implements transport.Conn: a recording has nobody to tell.
func (k *Conn) Send(context.Context, []byte) error { return nil }

// Close implements transport.Conn.
func (k *Conn) Close() error {
	k.once.Do(func() { close(k.closed) })
	return nil
}

// Hand gives f to the client's reading goroutine. It reports false when
// the client has ended (done) and reads no more.
func (k *Conn) Hand(f transport.Frame, done <-chan struct{}) bool {
	if !k.take(done) {
		return false
	}
	select {
	case k.frames <- f:
		k.waiting = false
		return true
	case <-done:
		return false
	}
}

// Taken waits until the client's reading goroutine has queued every frame
// handed over: it is back in Recv. It reports false when the client ended.
func (k *Conn) Taken(done <-chan struct{}) bool { return k.take(done) }

func (k *Conn) take(done <-chan struct{}) bool {
	if k.waiting {
		return true
	}
	select {
	case <-k.ready:
		k.waiting = true
		return true
	case <-done:
		return false
	}
}

// Clock is the client's clock while playing: the recorded time of what is
// being played, so prompts expire, and rates are judged, as they were when
// the capture was made. Its zero value is ready to use.
type Clock struct{ ns atomic.Int64 }

// Set makes t the time now.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Now is the time set last, in UTC.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }
