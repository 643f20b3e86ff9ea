// pump.go: the reader goroutine plumbing shared by the bindings.

package transport

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// frameQueue is how many frames a reader goroutine may run ahead of Recv.
const frameQueue = 64

// pump joins a binding's single reader goroutine to Recv and Close. The
// reader calls put for every frame and finish once, when it returns; Close
// cancels ctx, which the reader watches.
type pump struct {
	ctx    context.Context // canceled by close; the reader's lifetime
	cancel context.CancelFunc
	frames chan Frame
	done   chan struct{} // closed by finish
	err    error         // why the reader ended; written before done is closed
	closed atomic.Bool
	once   sync.Once
}

func newPump() *pump {
	ctx, cancel := context.WithCancel(context.Background())
	return &pump{ctx: ctx, cancel: cancel, frames: make(chan Frame, frameQueue), done: make(chan struct{})}
}

// put hands f to Recv; false means the connection was closed meanwhile.
func (p *pump) put(f Frame) bool {
	select {
	case p.frames <- f:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// finish records why the reader ended. Recv returns err once the frames
// already queued are taken.
func (p *pump) finish(err error) {
	p.err = err
	close(p.done)
}

// recv implements Conn.Recv.
func (p *pump) recv(ctx context.Context) (Frame, error) {
	if p.closed.Load() {
		return Frame{}, ErrClosed
	}
	select {
	case f := <-p.frames:
		return f, nil
	case <-ctx.Done():
		return Frame{}, ctx.Err()
	case <-p.ctx.Done():
		return Frame{}, ErrClosed
	case <-p.done:
		select {
		case f := <-p.frames:
			return f, nil
		default:
		}
		return Frame{}, p.err
	}
}

// close marks the connection closed and stops the reader; it reports whether
// this call was the first.
func (p *pump) close() bool {
	first := false
	p.once.Do(func() {
		first = true
		p.closed.Store(true)
		p.cancel()
	})
	return first
}

// settleWait bounds how long a status change waits for Recv to take the
// frames queued before it.
const settleWait = 2 * time.Second

// settle waits until Recv has taken every frame queued so far, the
// connection is closed, or settleWait has passed. A status change is told
// after it, so that "reconnecting" never overtakes the last frames of the
// stream that ended.
func (p *pump) settle() {
	deadline := time.Now().Add(settleWait)
	for len(p.frames) > 0 && time.Now().Before(deadline) {
		if !p.sleep(time.Millisecond) {
			return
		}
	}
}

// sleep waits d; false means the connection was closed meanwhile.
func (p *pump) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// backoff returns the delay before reconnect attempt n (from 1): base,
// doubled for every earlier attempt up to ceiling, drawn at random from the
// upper half of that range.
func backoff(base, ceiling time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	return d/2 + rand.N(d/2+1)
}
