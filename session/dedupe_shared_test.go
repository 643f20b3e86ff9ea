package session

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// Engines sharing a Dedupe drop their own duplicates, never another's
// events (the same agent_id and event_id from two agents of one kind), and
// together remember no more keys than its size.
func TestSharedDedupe(t *testing.T) {
	d := NewDedupe(8)
	a, ra := newTest(Config{Dedupe: d})
	b, rb := newTest(Config{Dedupe: d})
	x := ev("s", -1, "progress.updated")
	a.Handle(x, t0)
	a.Handle(x, t0)
	b.Handle(x, t0) // the same IDs from the other agent
	if got := len(ra.events()); got != 1 {
		t.Fatalf("engine a delivered %d, want its duplicate dropped", got)
	}
	if got := len(rb.events()); got != 1 {
		t.Fatalf("engine b delivered %d, want the other agent's event", got)
	}
	for i := range 100 {
		a.Handle(ev("s", -1, fmt.Sprint("a", i)), t0)
		b.Handle(ev("s", -1, fmt.Sprint("b", i)), t0)
	}
	if n := d.Len(); n > 8 {
		t.Fatalf("the shared window holds %d keys, want at most 8", n)
	}
	if n := a.seen.len() + b.seen.len(); n > 0 {
		t.Fatalf("the engines kept %d keys of their own", n)
	}
}

// A history sent again, longer than a shared window remembers, while
// another engine fills the window too: nothing is announced twice, and the
// drop is told in one line.
func TestReplayBeyondSharedDedupe(t *testing.T) {
	const n = 1000
	d := NewDedupe(16)
	e, r := newTest(Config{Dedupe: d})
	other, _ := newTest(Config{Dedupe: d})
	now := t0
	history := make([]*protocol.Event, n)
	for i := range int64(n) {
		history[i] = seqEvent("s", i, false)
		e.Handle(history[i], now)
		other.Handle(ev("o", -1, fmt.Sprint("o", i)), now)
	}
	r.reset()
	for _, x := range history {
		now = now.Add(time.Microsecond)
		e.Handle(x, now)
	}
	e.Handle(seqEvent("s", n, false), now)
	if got := r.events(); !slices.Equal(got, ids("s", n)) {
		t.Fatalf("delivered %d events after the replay, want only the new one; first: %v", len(got), got[:min(len(got), 3)])
	}
	want := fmt.Sprintf("duplicate: Session s: dropped %d events already announced (numbers 0 to %d); the producer sent them again.", n, n-1)
	if got := orderLog(r); !slices.Equal(got, []string{want, ids("s", n)[0]}) {
		t.Fatalf("got %v, want one line for the burst, then the new event", got[:min(len(got), 5)])
	}
}
