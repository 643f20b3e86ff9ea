package subscriber

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// The queue gives back what was pushed, in order, however pushes and takes
// interleave (across blocks, lent or copied), keeps nothing it gave, and
// holds no block once emptied.
func TestUpdateQueueOrder(t *testing.T) {
	b := blockSize
	tests := []struct {
		name  string
		steps []int // > 0: push that many; < 0: take that many
	}{
		{"push then take all", []int{5, -5}},
		{"a block at a time", []int{3 * b, -b, -b, -b}},
		{"across blocks", []int{7, -5, 2 * b, -(2*b + 2)}},
		{"blocks out of step", []int{b + 3, -3, 2 * b, -b, -b, -b}},
		{"many blocks", []int{40, -3, 5 * b, -(5*b + 37)}},
		{"one at a time", []int{1, -1, 1, 1, -2, 3, -1, -2}},
		{"a full block, then part of the next", []int{b + 1, -b, 4, -5}},
		{"part of a block, then the rest", []int{b, -10, -(b - 10)}},
	}
	for _, lend := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprint(tt.name, ", lend ", lend), func(t *testing.T) {
				q := updateQueue{pool: new(blockPool)}
				q.lend.Store(lend)
				var want []string
				next := 0
				for _, s := range tt.steps {
					if s > 0 {
						for range s {
							text := fmt.Sprint("u", next)
							next++
							q.push(&Update{Text: text})
							want = append(want, text)
						}
						continue
					}
					got := q.take(-s)
					if len(got) != -s {
						t.Fatalf("took %d updates, want %d", len(got), -s)
					}
					for i, u := range got {
						if u.Text != want[i] {
							t.Fatalf("took %q at %d, want %q", u.Text, i, want[i])
						}
					}
					want = want[-s:]
					if q.len() != len(want) {
						t.Fatalf("%d waiting, want %d", q.len(), len(want))
					}
					kept := 0
					for _, blk := range q.blocks {
						for _, u := range blk[:cap(blk)] {
							if u.Text != "" {
								kept++
							}
						}
					}
					if kept != q.len() {
						t.Fatalf("the blocks hold %d updates, %d wait: the queue keeps updates taken", kept, q.len())
					}
				}
				if len(q.blocks) != 0 {
					t.Errorf("emptied, the queue holds %d blocks", len(q.blocks))
				}
			})
		}
	}
}

// A client flooded faster than it is read never empties its queue; taking a
// batch from it and giving the batch back copies nothing and makes no new
// block: each batch is a block of the queue, lent, and comes back for the
// next updates. (Before blocks, the queue's ring was kept and each batch
// copied into the array given back.) The arrays are compared, not the
// process's allocations, which other tests' goroutines add to.
func TestFloodTakesWithoutAllocation(t *testing.T) {
	g := NewGroup(GroupConfig{})
	defer g.Stop()
	m := g.Join("m", "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
	burst := normal(DefaultBatchMax, "x")
	for _, u := range burst { // a backlog the reader never catches up with
		m.c.emit(&u)
	}
	first := func() *Update {
		m.c.mu.Lock()
		defer m.c.mu.Unlock()
		return &m.c.queue.blocks[0][0]
	}
	blocks := map[*Update]bool{}
	for round := range 64 {
		for _, u := range burst {
			m.c.emit(&u)
		}
		queued := first()
		b, err := m.c.NextBatch(context.Background(), DefaultBatchMax)
		if err != nil || len(b) != DefaultBatchMax {
			t.Fatalf("batch of %d, %v; want %d", len(b), err, DefaultBatchMax)
		}
		if round > 0 && &b[0] != queued { // the first batch is copied: nothing was given back yet
			t.Fatalf("batch %d: a copy, not the block queued", round)
		}
		blocks[&b[0]] = true
		g.Done(Batch{Member: m, Updates: b})
	}
	if len(blocks) > 3 {
		t.Errorf("64 batches were %d blocks: the queue makes new ones", len(blocks))
	}
}

// The blocks of a flood come back through the group's pool, and the memory
// kept between bursts is one block a member and the pool's, bounded for
// all members together: after bursts of each of 200 members, told and
// given back, no member's queue holds a block but its spare, the pool
// keeps at most maxPooled, and later bursts make no new block. (A ring
// kept by each member's queue held 27 MB more at 200 agents: stop 39.)
func TestUpdateBlocksKeptByTheGroup(t *testing.T) {
	g := NewGroup(GroupConfig{Expected: 200})
	defer g.Stop()
	var ms []*Member
	for i := range 200 {
		ms = append(ms, g.Join(fmt.Sprint("m", i), "", Config{}, func(cfg Config) *Client {
			return newClient("", transport.Endpoint{}, nil, cfg)
		}))
	}
	made := map[*Update]bool{}
	for round := range 3 {
		for i, m := range ms { // each member's burst told before the next one's
			for _, u := range normal(1+(i+round)%(3*blockSize), "x") {
				m.c.emit(&u)
			}
			for m.c.queue.len() > 0 {
				b, err := m.c.NextBatch(context.Background(), DefaultBatchMax)
				if err != nil {
					t.Fatal(err)
				}
				if round > 0 { // once each member's first batch (a copy) came back
					made[&b[:1][0]] = true
				}
				g.Done(Batch{Member: m, Updates: b})
			}
		}
	}
	for _, m := range ms {
		if n := len(m.c.queue.blocks); n != 0 {
			t.Fatalf("member %s, emptied, holds %d blocks", m.Tag(), n)
		}
		if m.c.queue.spare.Load() == nil {
			t.Fatalf("member %s keeps no spare block", m.Tag())
		}
	}
	g.blocks.mu.Lock()
	pooled := len(g.blocks.free)
	g.blocks.mu.Unlock()
	if pooled > maxPooled {
		t.Errorf("the pool keeps %d blocks, more than %d", pooled, maxPooled)
	}
	if len(made) > len(ms)+4 {
		t.Errorf("three rounds of bursts were %d blocks: the pool's are not taken again", len(made))
	}
}

// A reader that keeps its batches (never gives them back) gets copies of
// their size, not a block of blockSize updates each.
func TestUpdateQueueLendsOnlyOnceGivenBack(t *testing.T) {
	c := newClient("", transport.Endpoint{}, nil, Config{})
	for _, u := range normal(3, "x") {
		c.emit(&u)
	}
	b, err := c.NextBatch(context.Background(), 0)
	if err != nil || len(b) != 3 {
		t.Fatalf("batch of %d, %v", len(b), err)
	}
	if cap(b) != 3 {
		t.Errorf("a batch of 3 kept by its reader has room for %d", cap(b))
	}
	c.giveBack(b)
	for _, u := range normal(3, "x") {
		c.emit(&u)
	}
	if b, _ = c.NextBatch(context.Background(), 0); cap(b) != blockSize {
		t.Errorf("once batches come back, a batch of 3 is not a block (room for %d)", cap(b))
	}
}

// A block comes back only as it was lent and only once: a batch given
// back twice (a reader's mistake) must not put one block in two queues,
// where two agents' updates would be written over each other's, and a
// batch given back re-sliced must leave nothing of its updates in the
// block the next burst fills. Either mistake is left to the collector.
func TestUpdateQueueTakesBackOnlyWhatItLent(t *testing.T) {
	var pool blockPool
	a := newClient("", transport.Endpoint{}, nil, Config{blocks: &pool})
	b := newClient("", transport.Endpoint{}, nil, Config{blocks: &pool})
	batch := func(c *Client, n int) []Update {
		t.Helper()
		for _, u := range normal(n, "x") {
			c.emit(&u)
		}
		got, err := c.NextBatch(context.Background(), 0)
		if err != nil || len(got) != n {
			t.Fatalf("batch of %d, %v", len(got), err)
		}
		return got
	}
	a.giveBack(batch(a, 1)) // from now on a lends its blocks
	b.giveBack(batch(b, 1))

	twice := batch(a, blockSize)
	a.giveBack(twice)
	a.giveBack(twice)
	cut := batch(a, 5)
	a.giveBack(cut[:0]) // its 5 updates must be cleared all the same
	a.giveBack(cut[1:]) // not a block lent: ignored

	// b's own spare block first, then one from the pool.
	inA, inB, inB2 := batch(a, 3), batch(b, 3), batch(b, 3)
	if p := unsafe.SliceData(inA); p == unsafe.SliceData(inB) || p == unsafe.SliceData(inB2) {
		t.Fatal("two queues lent the same block: a batch given back twice went to both")
	}
	for _, blk := range [][]Update{inA, inB, inB2} {
		for i, u := range blk[len(blk):cap(blk)] {
			if u.Kind != 0 || u.Text != "" || u.Delivery.Event != nil {
				t.Fatalf("slot %d beyond a new batch holds an update given back: %+v", len(blk)+i, u)
			}
		}
	}
}

// A delivery is written in its place in the queue (emitDelivery): the
// update queued is the one emit queues for it, in every field, whatever
// the slot held before (taken, wrapped round, grown), and the prompt it
// carries is a copy the engine's later changes do not reach.
func TestEmitDeliveryAsEmit(t *testing.T) {
	ev := &protocol.Event{Type: protocol.TypeProgressUpdated, EventID: "evt_1"}
	at := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	for _, d := range []session.Delivery{
		{Kind: session.KindEvent, At: at, Event: ev, Note: "a note", Rule: "r"},
		{Kind: session.KindPromptExpired, At: at, Event: ev, Prompt: &session.Prompt{Number: 3}, Reminder: 2},
	} {
		byEmit, inPlace := newClient("", transport.Endpoint{}, nil, Config{}), newClient("", transport.Endpoint{}, nil, Config{})
		for _, c := range []*Client{byEmit, inPlace} { // leave used slots behind, wrapped round
			for range 3 {
				for _, u := range normal(5, "x") {
					c.emit(&u)
				}
				c.mu.Lock()
				c.take(5)
				c.mu.Unlock()
			}
		}
		dd := d
		byEmit.emit(&Update{Kind: KindDelivery, At: d.At, Delivery: dd})
		inPlace.emitDelivery(&d)
		if d.Prompt != nil {
			d.Prompt.Number = 99 // the engine goes on
		}
		byEmit.mu.Lock()
		want := byEmit.take(1)[0]
		byEmit.mu.Unlock()
		inPlace.mu.Lock()
		got := inPlace.take(1)[0]
		inPlace.mu.Unlock()
		if d.Prompt != nil {
			if got.Delivery.Prompt == d.Prompt || got.Delivery.Prompt.Number != 3 {
				t.Fatalf("%v: the queued prompt is the engine's, or changed with it", d.Kind)
			}
			got.Delivery.Prompt, want.Delivery.Prompt = nil, nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v: emitDelivery queued\n%+v\nemit queues\n%+v", d.Kind, got, want)
		}
	}
}
