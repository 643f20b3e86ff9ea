package subscriber

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// The queue gives back what was pushed, in order, however pushes and takes
// interleave (wrapping round its ring and growing it), and keeps nothing
// it gave.
func TestUpdateQueueOrder(t *testing.T) {
	tests := []struct {
		name  string
		steps []int // > 0: push that many; < 0: take that many
	}{
		{"push then take all", []int{5, -5}},
		{"wrap round", []int{6, -4, 5, -7}},
		{"grow while wrapped", []int{7, -5, 12, -14}},
		{"grow twice", []int{40, -3, 100, -137}},
		{"one at a time", []int{1, -1, 1, 1, -2, 3, -1, -2}},
		{"large ring let go after a small burst", []int{keptRing + 1, -(keptRing + 1), 2, -2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q updateQueue
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
				got := q.take(nil, -s)
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
				for _, u := range q.ring {
					if u.Text != "" {
						kept++
					}
				}
				if kept != q.len() {
					t.Fatalf("the ring holds %d updates, %d wait: it keeps updates taken", kept, q.len())
				}
			}
			if last := tt.steps[len(tt.steps)-1]; len(q.ring) > keptRing && -last*4 <= len(q.ring) {
				t.Errorf("emptied after a burst of %d, the queue keeps a ring of %d", -last, len(q.ring))
			}
		})
	}
}

// A client flooded faster than it is read never empties its queue; taking a
// batch from it and giving the batch back makes no new array: the queue
// keeps its ring and each batch is copied into the array given back.
// (Before, the queue's array was copied into a new one every second batch
// taken: 32 allocations for 64 batches of 64.) The arrays are compared,
// not the process's allocations, which other tests' goroutines add to.
func TestFloodTakesWithoutAllocation(t *testing.T) {
	g := NewGroup(GroupConfig{})
	defer g.Stop()
	m := g.Join("m", "", Config{}, func(cfg Config) *Client { return newClient("", transport.Endpoint{}, nil, cfg) })
	burst := normal(DefaultBatchMax, "x")
	for _, u := range burst { // a backlog the reader never catches up with
		m.c.emit(&u)
	}
	ring := func() *Update {
		m.c.mu.Lock()
		defer m.c.mu.Unlock()
		return &m.c.queue.ring[0]
	}
	var firstRing, batch *Update
	for round := range 64 {
		for _, u := range burst {
			m.c.emit(&u)
		}
		b, err := m.c.NextBatch(context.Background(), DefaultBatchMax)
		if err != nil || len(b) != DefaultBatchMax {
			t.Fatalf("batch of %d, %v; want %d", len(b), err, DefaultBatchMax)
		}
		switch {
		case round == 1: // the first batch given back is in use from now on
			firstRing, batch = ring(), &b[0]
		case round > 1 && ring() != firstRing:
			t.Fatalf("batch %d: the queue made a new ring", round)
		case round > 1 && &b[0] != batch:
			t.Fatalf("batch %d: taken into a new array, not the one given back", round)
		}
		g.Done(Batch{Member: m, Updates: b})
	}
}

// A queue whose bursts fill its ring keeps it when emptied (a flood pays
// for no new ring each burst); after a burst small beside it, the ring goes.
func TestUpdateQueueKeepsARingItFills(t *testing.T) {
	var q updateQueue
	var taken []Update
	burst := func(n int) {
		for range n {
			q.push(&Update{Text: "x"})
		}
		taken = q.take(taken[:0], n)
	}
	burst(200)
	size := len(q.ring)
	if size < 200 {
		t.Fatalf("a ring of %d for 200 updates", size)
	}
	kept, into := &q.ring[0], &taken[0]
	burst(200)
	if &q.ring[0] != kept || &taken[0] != into {
		t.Error("a burst of 200 after one alike made a new ring or array")
	}
	burst(3)
	if len(q.ring) > keptRing {
		t.Errorf("after a burst of 3 the queue keeps a ring of %d", len(q.ring))
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
