package subscriber

// updatequeue.go: the updates a client has queued and nobody has taken
// yet, kept in blocks of a batch's size, without an allocation per update
// or per batch.

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// blockSize is the updates a block holds: a group's batch (DefaultBatchMax),
// so that a batch taken in turn is a block, lent whole rather than copied.
const blockSize = DefaultBatchMax

// updateQueue holds updates oldest first, in blocks of blockSize updates
// filled one after the other. A take that is a whole block, every update
// of it and no other, lends the block itself when its client's batches are
// given back (lend): nothing is copied, and the block comes back, cleared
// (giveBack). Any other take copies the updates out and clears the slots
// it leaves. Either way the queue keeps no update (and no event) already
// taken. An emptied block is kept as the queue's spare, one block, or
// goes to the pool of its client's group (blockPool), bounded for all
// members together: a quiet agent of many holds one block, and the blocks
// a flood needs are the group's, not kept by each agent. Its owner holds
// the client's lock.
type updateQueue struct {
	// blocks[0][head:], blocks[1], … are the updates waiting; every block
	// but the last is full (len == cap == blockSize), and the slots beyond
	// a block's length are zero.
	blocks [][]Update
	head   int
	n      int // updates waiting
	// lend is set once a batch taken was given back (giveBack): whole
	// blocks are then lent; a reader that keeps its batches gets copies
	// of its size, not a block each.
	lend atomic.Bool
	pool *blockPool // where blocks come from and go back to; set when the client is made
	// spare is one emptied block kept by this queue, taken before the
	// pool's, so that a burst of one agent among many (200 agents sending
	// in the same instants: each queue needs a block at once) neither
	// takes the pool's lock nor makes a block. Read and written without
	// the client's lock (giveBack).
	spare atomic.Pointer[[blockSize]Update]
	// out are the blocks lent and not given back yet, each with the
	// updates it was lent with: a block comes back only as it was lent
	// and only once (given back twice, it would be filled by two queues),
	// and it is cleared to what it was lent with, whatever the reader did
	// to its slice. At most maxOut are remembered; an older one is never
	// taken back, and the collector has it.
	out [][]Update
}

// maxOut bounds the blocks a queue remembers lending: a reader gives each
// batch back before it takes the next.
const maxOut = 8

// lent notes that b, a block, is lent, and returns it.
func (q *updateQueue) lent(b []Update) []Update {
	if len(q.out) == maxOut {
		q.out = dropFirst(q.out)
	}
	q.out = append(q.out, b)
	return b
}

// back returns the block lent whose first slot b's is, and forgets it;
// false when no block lent and not given back starts there.
func (q *updateQueue) back(b []Update) ([]Update, bool) {
	if cap(b) == 0 {
		return nil, false
	}
	p := unsafe.SliceData(b)
	for i, o := range q.out {
		if unsafe.SliceData(o) == p {
			q.out = slices.Delete(q.out, i, i+1)
			return o, true
		}
	}
	return nil, false
}

func (q *updateQueue) len() int { return q.n }

// push adds a copy of *u after the updates waiting.
func (q *updateQueue) push(u *Update) { *q.add() = *u }

// add makes room for one update after the updates waiting and returns it,
// zero, for the caller to fill.
func (q *updateQueue) add() *Update {
	last := len(q.blocks) - 1
	if last < 0 || len(q.blocks[last]) == blockSize {
		q.blocks = append(q.blocks, q.block())
		last++
	}
	b := q.blocks[last]
	b = b[:len(b)+1]
	q.blocks[last] = b
	q.n++
	return &b[len(b)-1]
}

// take removes the oldest n updates (0 < n <= len) and returns them, in
// order: the first block itself when it holds those n and no other update
// and the queue lends, else a copy. A copy of at most blockSize updates
// is made in a block when the queue lends (it comes back as one).
func (q *updateQueue) take(n int) []Update {
	first := q.blocks[0]
	if q.lend.Load() && q.head == 0 && n == len(first) {
		// Full, or the last block: nothing more is written in it.
		q.blocks = dropFirst(q.blocks)
		q.n -= n
		return q.lent(first)
	}
	var out []Update
	if q.lend.Load() && n <= blockSize {
		out = q.lent(q.block()[:n])
	} else {
		out = make([]Update, n)
	}
	for k := 0; k < n; {
		b := q.blocks[0]
		c := copy(out[k:], b[q.head:])
		clear(b[q.head : q.head+c])
		k += c
		q.head += c
		q.n -= c
		if q.head == len(b) && (len(b) == blockSize || q.n == 0) {
			q.blocks, q.head = dropFirst(q.blocks), 0
			q.release(b)
		}
	}
	return out
}

// block returns an empty block, cleared: the queue's spare, else the
// pool's.
func (q *updateQueue) block() []Update {
	if p := q.spare.Swap(nil); p != nil {
		return p[:0]
	}
	return q.pool.get()
}

// release takes back b, a block of the queue's whose every slot is zero:
// as the queue's spare, else into the pool. Safe on any goroutine.
func (q *updateQueue) release(b []Update) {
	if cap(b) != blockSize {
		return
	}
	if q.spare.CompareAndSwap(nil, (*[blockSize]Update)(b[:blockSize])) {
		return
	}
	q.pool.put(b)
}

// dropFirst removes the first of bs, moving the rest down so that the
// array is reused rather than grown.
func dropFirst[T any](bs []T) []T {
	n := copy(bs, bs[1:])
	var zero T
	bs[n] = zero
	return bs[:n]
}

// maxPooled bounds the blocks a pool keeps: a whole queue's worth
// (maxQueued updates), enough for a flood never to make a block again,
// about 1.2 MB for all the agents of a group together.
const maxPooled = maxQueued / blockSize

// blockPool keeps emptied blocks of updates, cleared, for the queues of one
// group's clients (or of one client alone) to fill again: the blocks a
// flood lends come back here, and a burst of many agents' updates takes
// them from here, so that the memory kept between bursts is the pool's,
// bounded for all the agents together, not a ring each. Safe for
// concurrent use.
type blockPool struct {
	mu   sync.Mutex
	free [][]Update // len 0, cap blockSize, every slot zero
}

// get returns an empty block, cleared.
func (p *blockPool) get() []Update {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	return make([]Update, 0, blockSize)
}

// put keeps b, a block whose every slot is zero, for get; a block beyond
// maxPooled goes.
func (p *blockPool) put(b []Update) {
	if cap(b) != blockSize {
		return
	}
	p.mu.Lock()
	if len(p.free) < maxPooled {
		p.free = append(p.free, b[:0])
	}
	p.mu.Unlock()
}
