package subscriber

// updatequeue.go: the updates a client has queued and nobody has taken
// yet, kept without an allocation per update or per batch.

import "slices"

// keptRing is the largest ring an emptied queue always keeps for its next
// burst. A larger one is kept only while its bursts fill more than a
// quarter of it, so that an agent that floods keeps its ring and a quiet
// agent of many holds little.
const keptRing = 32

// updateQueue holds updates oldest first, in a ring that doubles when full
// and is never copied to take a batch: taking copies the batch out and
// clears the slots it leaves, so the queue keeps no update (and no event)
// already taken. Its owner holds the client's lock.
type updateQueue struct {
	ring []Update // len(ring) is 0 or a power of two
	head int      // the oldest update is ring[head]
	n    int      // updates waiting
	peak int      // the most updates waiting since the queue was last empty
}

func (q *updateQueue) len() int { return q.n }

// push adds a copy of *u after the updates waiting.
func (q *updateQueue) push(u *Update) { *q.add() = *u }

// add makes room for one update after the updates waiting and returns it,
// zero (a slot is cleared when taken), for the caller to fill.
func (q *updateQueue) add() *Update {
	if q.n == len(q.ring) {
		q.grow()
	}
	u := &q.ring[(q.head+q.n)&(len(q.ring)-1)]
	q.n++
	q.peak = max(q.peak, q.n)
	return u
}

func (q *updateQueue) grow() {
	ring := make([]Update, max(minRing, 2*len(q.ring)))
	q.copyOut(ring, q.n)
	q.ring, q.head = ring, 0
}

// minRing is the ring a queue starts with: room for a burst of a few
// updates, as most agents send.
const minRing = 8

// copyOut copies the oldest n updates, in order, to dst[:n].
func (q *updateQueue) copyOut(dst []Update, n int) {
	k := copy(dst[:n], q.ring[q.head:])
	copy(dst[k:n], q.ring[:n-k])
}

// take removes the oldest n updates (n <= len) and appends them to dst.
// An emptied queue lets a large ring go when its last burst was small.
func (q *updateQueue) take(dst []Update, n int) []Update {
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	q.copyOut(dst[start:], n)
	if end := q.head + n; end <= len(q.ring) {
		clear(q.ring[q.head:end])
	} else {
		clear(q.ring[q.head:])
		clear(q.ring[:end-len(q.ring)])
	}
	q.head = (q.head + n) & (len(q.ring) - 1)
	q.n -= n
	if q.n == 0 {
		q.head = 0
		if len(q.ring) > keptRing && 4*q.peak <= len(q.ring) {
			q.ring = nil
		}
		q.peak = 0
	}
	return dst
}
