// pump.go: the reader goroutine plumbing shared by the bindings.

package transport

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// frameQueue is how many frames a reader goroutine may run ahead of Recv
// (a reader that queues several at once, putAll, a few more). It is four
// of the bursts a client takes at once (subscriber's readBurst): a reader
// that found it full is woken at lowWater, two bursts down, so the
// client takes its next burst while the reader refills the queue, never
// finding it empty for want of the reader's turn. With a queue of one
// burst, the client took it all, woke the reader and, when it came back
// before the reader had run, waited for it: a hand-off each way a burst.
const frameQueue = 256

// queueBytes bounds the data of the frames waiting (Frame.Data), as
// frameQueue bounds their number: a producer sending large messages
// fills the queue with a few of them. The reader waits, as for a full
// queue, once this many bytes wait, until Recv has taken them down to
// half.
const queueBytes = 1 << 20

// pump joins a binding's single reader goroutine to Recv and Close. The
// reader calls put for every frame and finish once, when it returns; Close
// cancels ctx, which the reader watches.
//
// Frames wait in one queue, in the order they were received: the reader
// queues each frame it reads at once and then waits while the queue is
// full, so it reads no further ahead of Recv; an answer that comes back on
// Send (insert) is queued at the moment it is received, between the frames
// read before it and those read after, without waiting.
type pump struct {
	ctx    context.Context // canceled by close; the reader's lifetime
	cancel context.CancelFunc

	mu    sync.Mutex
	queue []Frame       // guarded by mu; the frames waiting are queue[head:]
	head  int           // guarded by mu
	bytes int           // the data of the frames waiting; guarded by mu
	ready chan struct{} // signalled when a frame is queued
	room  chan struct{} // signalled when Recv takes a frame

	done   chan struct{} // closed by finish
	err    error         // why the reader ended; written before done is closed
	reason EndReason     // the same, for programs; written before done is closed
	closed atomic.Bool
	once   sync.Once

	// inBand: notes are queued as frames for Recv (Frame.Note), not told
	// to callbacks.
	inBand bool

	// dialing: Dial has not returned the connection, so nobody can call
	// Recv yet and waiting for room would never end (a producer that
	// writes a hundred lines on standard error while Dial waits for its
	// handshake would hang Dial). Meanwhile put does not wait, and the
	// problems told beyond dialBacklog are counted, not queued. Guarded
	// by mu; handOver ends it.
	dialing bool
	dropped int // problems not queued while dialing; guarded by mu
}

// initialQueue is the room a pump's queue starts with: it grows to
// frameQueue (and the frames queued with the last) only for a producer
// that sends faster than its events are handled, so that a listener of
// many quiet agents keeps no large queue for each.
const initialQueue = 64

// dialBacklog is how many frames may wait while Dial runs; problems told
// beyond it are counted, and the count is said once Dial is done.
const dialBacklog = 256

func newPump(inBand bool) *pump {
	ctx, cancel := context.WithCancel(context.Background())
	return &pump{ctx: ctx, cancel: cancel, queue: make([]Frame, 0, initialQueue),
		ready: make(chan struct{}, 1), room: make(chan struct{}, 1), done: make(chan struct{}), inBand: inBand}
}

// newDialPump is newPump for a connection Dial opens before returning it:
// until handOver, nothing waits for Recv.
func newDialPump(inBand bool) *pump {
	p := newPump(inBand)
	p.dialing = true
	return p
}

// handOver ends dialing, just before Dial returns the connection (and
// before the reader goroutine starts): from now on put waits for Recv.
// Problems left out while dialing are said here, as one note.
func (p *pump) handOver() {
	p.mu.Lock()
	p.dialing = false
	n := p.dropped
	p.dropped = 0
	if n > 0 {
		text := fmt.Sprintf("%d more problems were reported while connecting; they are not shown.", n)
		p.queue = append(p.queue, Frame{Note: &Note{Problem: true, Text: text}, At: time.Now()})
	}
	p.mu.Unlock()
	signal(p.ready)
}

// tell says n: in band, it is queued for Recv after every frame queued
// before it (and waits for room, as a frame does); otherwise it goes to
// onStatus or onProblem, a status only once Recv has taken the frames
// before it. Either way, "reconnecting" returns once Recv has taken what
// came before it, so the wait to reconnect starts when the consumer has
// caught up, as it did with callbacks. Nil callbacks are skipped.
func (p *pump) tell(n Note, onStatus StatusFunc, onProblem func(string)) {
	switch {
	case p.inBand && n.Problem && p.leftOut():
	case p.inBand:
		p.put(Frame{Note: &n, At: time.Now()})
		if !n.Problem && n.Status == StatusReconnecting {
			p.settle() // only the reader says it, never Dial: Recv is being called
		}
	case n.Problem:
		if onProblem != nil {
			onProblem(n.Text)
		}
	case onStatus != nil:
		p.settle() // after the frames that came before it
		onStatus(n.Status, n.Text)
	}
}

// signal wakes the one goroutine that may wait on ch.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// leftOut reports whether a problem told now is counted rather than
// queued: Dial is running and dialBacklog frames wait already.
func (p *pump) leftOut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.dialing || len(p.queue)-p.head < dialBacklog {
		return false
	}
	p.dropped++
	return true
}

// lowWater is how few frames may wait before a reader that found the
// queue full reads on: it then reads a burst, not one frame per frame
// taken. Woken at every frame taken, a reader ahead of Recv ran in turn
// with it, on one core, a wake-up per frame.
const lowWater = frameQueue / 2

// put queues f for Recv, then, when the queue is full (frameQueue frames
// or queueBytes of data), waits until Recv has taken it down to lowWater
// frames and half those bytes (not while dialing); false means the
// connection was closed meanwhile.
func (p *pump) put(f Frame) bool {
	one := [1]Frame{f}
	return p.putAll(one[:])
}

// putAll is put for several frames, queued in order under one lock; it
// waits, as put does, once they are all queued.
func (p *pump) putAll(fs []Frame) bool {
	if len(fs) == 0 || !p.insertAll(fs) {
		return true
	}
	for p.overLowWater() {
		select {
		case <-p.room:
		case <-p.ctx.Done():
			return false
		}
	}
	return true
}

// insert queues f for Recv after every frame queued before it, without
// waiting, and reports whether the queue is full (never while dialing:
// then put must not wait).
func (p *pump) insert(f Frame) bool {
	one := [1]Frame{f}
	return p.insertAll(one[:])
}

// insertAll is insert for several frames, in order.
func (p *pump) insertAll(fs []Frame) bool {
	p.mu.Lock()
	if len(p.queue)+len(fs) > cap(p.queue) && p.head > 0 { // reuse the room taken frames left
		n := copy(p.queue, p.queue[p.head:])
		clear(p.queue[n:])
		p.queue, p.head = p.queue[:n], 0
	}
	p.queue = append(p.queue, fs...)
	for i := range fs {
		p.bytes += len(fs[i].Data)
	}
	// Nobody takes frames while dialing: waiting would never end.
	full := !p.dialing && (len(p.queue)-p.head >= frameQueue || p.bytes >= queueBytes)
	p.mu.Unlock()
	signal(p.ready)
	return full
}

// queued returns how many frames wait for Recv.
func (p *pump) queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue) - p.head
}

// overLowWater reports whether more than lowWater frames, or more than
// half of queueBytes, wait for Recv: a reader that found the queue full
// waits until neither does.
func (p *pump) overLowWater() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)-p.head > lowWater || p.bytes > queueBytes/2
}

// takeAll appends to dst the frames waiting, oldest first, at most limit,
// under one lock; it reports how many it took.
func (p *pump) takeAll(dst []Frame, limit int) ([]Frame, int) {
	p.mu.Lock()
	k := min(len(p.queue)-p.head, limit)
	if k == 0 {
		p.mu.Unlock()
		return dst, 0
	}
	dst = append(dst, p.queue[p.head:p.head+k]...)
	for i := p.head; i < p.head+k; i++ {
		p.bytes -= len(p.queue[i].Data)
	}
	clear(p.queue[p.head : p.head+k])
	p.head += k
	if p.head == len(p.queue) {
		p.queue, p.head = p.queue[:0], 0
	}
	n, bytes := len(p.queue)-p.head, p.bytes
	p.mu.Unlock()
	if n <= lowWater && bytes <= queueBytes/2 {
		// Only now may a waiting reader go on (put), and settle waits
		// for none.
		signal(p.room)
	}
	return dst, k
}

// finish records why the reader ended. Recv returns err once the frames
// already queued are taken.
func (p *pump) finish(err error, reason EndReason) {
	p.err, p.reason = err, reason
	close(p.done)
}

// EndReason implements Ender.
func (p *pump) EndReason() EndReason {
	select {
	case <-p.done:
		return p.reason
	default:
		return EndFailed
	}
}

// recv implements Conn.Recv. A frame already waiting is returned even when
// ctx is done.
func (p *pump) recv(ctx context.Context) (Frame, error) {
	var one [1]Frame
	fs, err := p.recvBatch(ctx, one[:0], 1)
	if len(fs) == 0 {
		return Frame{}, err
	}
	return fs[0], nil
}

// recvBatch implements BatchReceiver.RecvBatch as recv implements Recv.
func (p *pump) recvBatch(ctx context.Context, dst []Frame, limit int) ([]Frame, error) {
	limit = max(limit, 1)
	for {
		if p.closed.Load() {
			return dst, ErrClosed
		}
		var k int
		if dst, k = p.takeAll(dst, limit); k > 0 {
			return dst, nil
		}
		select {
		case <-p.ready:
		case <-ctx.Done():
			return dst, ctx.Err()
		case <-p.ctx.Done():
			return dst, ErrClosed
		case <-p.done:
			if dst, k = p.takeAll(dst, limit); k > 0 {
				return dst, nil
			}
			return dst, p.err
		}
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

// settle waits until Recv has taken every frame queued so far, or the
// connection is closed. Without in-band notes, a status change is told to
// its callback after it, so that "reconnecting" never overtakes the last
// frames of the stream that ended, however slow the consumer: no timer
// decides. (In band, the queue itself keeps the order.) Only the reader
// goroutine calls it (or Dial, before the reader starts).
func (p *pump) settle() {
	for p.queued() > 0 {
		select {
		case <-p.room:
		case <-p.ctx.Done():
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
