package subscriber

import "sync"

// maxInbox is how many decoded frames may wait for the owner goroutine
// before the reading goroutine stops reading from the producer: the
// largest burst (as the channel of 256 frames before it). On one core a
// larger burst is slower: its events leave the processor's cache between
// their decoding and the engine.
const maxInbox = 256

// minInboxRoom is the least room an inbox makes at once (see put).
const minInboxRoom = 16

// inbox holds the frames the reading goroutine has decoded and the owner
// goroutine has not handled yet, in the order they were received. The
// reader adds one frame at a time under a short lock; the owner takes
// everything waiting at once, as one burst, so a frame costs no channel
// hand-off and no goroutine switch of its own. Nothing is dropped: when
// maxInbox frames wait, the reader waits for room, and so the producer is
// read no faster than the client handles what it sends.
type inbox struct {
	mu     sync.Mutex
	frames []decoded // waiting, oldest first; guarded by mu
	last   int       // how many frames the owner took last; guarded by mu
	// spare is the owner's: the slice of the last burst handled, kept for
	// the next one.
	spare []decoded
	ready chan struct{} // holds a token when frames may be waiting
	room  chan struct{} // holds a token when the owner has taken frames
}

func newInbox() *inbox {
	return &inbox{ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
}

// put adds d after the frames waiting. While the inbox is full it waits for
// the owner to take them, or for stop or quit to be closed; then it reports
// false and d is not added.
func (in *inbox) put(d decoded, stop, quit <-chan struct{}) bool {
	one := [1]decoded{d}
	return in.putAll(one[:], stop, quit)
}

// putAll adds ds, in order, after the frames waiting: as many at once as
// there is room for, under one lock. While the inbox is full it waits as
// put does; false means some of ds were not added.
func (in *inbox) putAll(ds []decoded, stop, quit <-chan struct{}) bool {
	for len(ds) > 0 {
		in.mu.Lock()
		if n := len(in.frames); n < maxInbox {
			if in.frames == nil {
				// Room for twice the last burst at once: growing by
				// appending copies. Not maxInbox always: kept by every
				// client of many, even when each sends one event at a
				// time, those arrays were a third of the heap the
				// collector scans (200 agents: 14.7 MB).
				in.frames = make([]decoded, 0, min(maxInbox, max(minInboxRoom, 2*in.last)))
			}
			k := min(maxInbox-n, len(ds))
			in.frames = append(in.frames, ds[:k]...)
			in.mu.Unlock()
			if n == 0 {
				signal(in.ready) // the owner takes all, so it needs waking only for the first
			}
			ds = ds[k:]
			continue
		}
		in.mu.Unlock()
		select {
		case <-in.room:
		case <-stop:
			return false
		case <-quit:
			return false
		}
	}
	return true
}

// waiting reports whether frames wait to be taken.
func (in *inbox) waiting() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.frames) > 0
}

// take returns every frame waiting, oldest first, and leaves the inbox
// empty. Only the owner calls it; it gives the slice back with done.
func (in *inbox) take() []decoded {
	in.mu.Lock()
	out := in.frames
	in.frames, in.spare = in.spare, nil
	in.last = len(out)
	in.mu.Unlock()
	if len(out) > 0 {
		signal(in.room)
	}
	return out
}

// done gives back the slice of a burst that take returned, once handled.
func (in *inbox) done(b []decoded) {
	if in.spare == nil && cap(b) <= maxInbox {
		clear(b) // the events go with the updates, not with the inbox
		in.spare = b[:0]
	}
}

// signal leaves a token in ch (of capacity one) unless one is there.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
