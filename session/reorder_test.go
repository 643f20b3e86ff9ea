package session

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

const wait = 250 * time.Millisecond

// seqEvent is event seq of session s: session.started for 0, else a progress
// update (critical when crit).
func seqEvent(s string, seq int64, crit bool) *protocol.Event {
	typ := "progress.updated"
	if seq == 0 {
		typ = "session.started"
	}
	e := ev(s, seq, typ)
	if crit {
		e.Urgency = protocol.UrgencyCritical
	}
	return e
}

func ids(s string, seqs ...int64) []string {
	out := make([]string, len(seqs))
	for i, n := range seqs {
		out[i] = fmt.Sprintf("%s/%d", s, n)
	}
	return out
}

// TestShuffledDeliveredOnceInOrder is a property test: whatever the arrival
// order and however many copies, while nothing waits longer than the reorder
// wait every session's events come out exactly once, in order.
func TestShuffledDeliveredOnceInOrder(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 42))
		sessions := 1 + rng.IntN(4)
		var arrivals []*protocol.Event
		length := map[string]int{}
		for i := range sessions {
			s := fmt.Sprint("sess_", i)
			n := 1 + rng.IntN(40)
			length[s] = n
			for seq := range n {
				for range 1 + rng.IntN(3) { // one to three copies
					arrivals = append(arrivals, seqEvent(s, int64(seq), false))
				}
			}
		}
		rng.Shuffle(len(arrivals), func(i, j int) { arrivals[i], arrivals[j] = arrivals[j], arrivals[i] })

		e, r := newTest(Config{ReorderWait: wait})
		now := t0
		for _, a := range arrivals {
			now = now.Add(time.Microsecond) // all within the wait
			e.Handle(a, now)
		}
		e.Flush(now)

		perSession := map[string][]string{}
		for _, id := range r.events() {
			s, _, _ := strings.Cut(id, "/")
			perSession[s] = append(perSession[s], id)
		}
		for s, n := range length {
			want := ids(s, seqs(n)...)
			if !equal(perSession[s], want) {
				t.Fatalf("seed %d: session %s delivered %v, want %v", seed, s, perSession[s], want)
			}
		}
		for _, code := range []string{"gap", "late", "joined", "lifecycle"} {
			if d := r.diags(code); len(d) > 0 {
				t.Fatalf("seed %d: unexpected %s diagnostic: %s", seed, code, d[0].Message)
			}
		}
		if !e.NextDeadline().IsZero() {
			t.Fatalf("seed %d: a deadline is left after Flush", seed)
		}
	}
}

func seqs(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// step is one arrival, or a clock change, in a reorder scenario.
type step struct {
	seq  int64         // arrival of event seq of session "s"; -1 for none
	crit bool          // the event is critical
	at   time.Duration // time of the arrival (or of the Tick) since t0
	tick bool          // call Tick at `at` instead
}

func TestReorder(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		flush bool
		want  []string // deliveries (event IDs) and diagnostics (code: message) in order
	}{
		{
			name:  "in order",
			steps: []step{{seq: 0}, {seq: 1}, {seq: 2}},
			want:  []string{"s/0", "s/1", "s/2"},
		},
		{
			name:  "swapped pair waits for the missing one",
			steps: []step{{seq: 0}, {seq: 2}, {seq: 1, at: 100 * time.Millisecond}},
			want:  []string{"s/0", "s/1", "s/2"},
		},
		{
			name:  "critical is never held back",
			steps: []step{{seq: 0}, {seq: 2, crit: true}, {seq: 1, at: time.Millisecond}, {seq: 3, at: 2 * time.Millisecond}},
			want: []string{"s/0", "s/2",
				"late: Session s: event 1 arrived late, after later events; it is announced out of order.", "s/1", "s/3"},
		},
		{
			name:  "critical ahead leaves no gap when the missing one is given up",
			steps: []step{{seq: 0}, {seq: 3, crit: true}, {seq: 4}, {at: wait, tick: true}},
			want:  []string{"s/0", "s/3", "gap: Session s: events 1 to 2 never arrived.", "s/4"},
		},
		{
			name:  "gap after the wait",
			steps: []step{{seq: 0}, {seq: 3}, {at: wait - time.Millisecond, tick: true}, {at: wait, tick: true}},
			want:  []string{"s/0", "gap: Session s: events 1 to 2 never arrived.", "s/3"},
		},
		{
			name:  "single missing event",
			steps: []step{{seq: 0}, {seq: 2}, {seq: 3}, {at: wait, tick: true}},
			want:  []string{"s/0", "gap: Session s: event 1 never arrived.", "s/2", "s/3"},
		},
		{
			name:  "each event waits from its own arrival",
			steps: []step{{seq: 0}, {seq: 2}, {seq: 4, at: 200 * time.Millisecond}, {at: wait, tick: true}, {at: 200*time.Millisecond + wait, tick: true}},
			want: []string{"s/0", "gap: Session s: event 1 never arrived.", "s/2",
				"gap: Session s: event 3 never arrived.", "s/4"},
		},
		{
			name:  "late event is still delivered",
			steps: []step{{seq: 0}, {seq: 2}, {at: wait, tick: true}, {seq: 1, at: wait + time.Millisecond}},
			want: []string{"s/0", "gap: Session s: event 1 never arrived.", "s/2",
				"late: Session s: event 1 arrived late, after later events; it is announced out of order.", "s/1"},
		},
		{
			name:  "Handle releases what waited too long without Tick",
			steps: []step{{seq: 0}, {seq: 2}, {seq: 3, at: wait}},
			want:  []string{"s/0", "gap: Session s: event 1 never arrived.", "s/2", "s/3"},
		},
		{
			name:  "joined mid-session",
			steps: []step{{seq: 5}, {seq: 7}, {seq: 6, at: 10 * time.Millisecond}, {at: wait, tick: true}},
			want:  []string{"joined: Joined session s at event 5; its earlier events were not received.", "s/5", "s/6", "s/7"},
		},
		{
			name:  "joined: an earlier event arriving within the wait goes first",
			steps: []step{{seq: 5}, {seq: 4, at: 10 * time.Millisecond}, {at: wait, tick: true}},
			want:  []string{"joined: Joined session s at event 4; its earlier events were not received.", "s/4", "s/5"},
		},
		{
			name:  "joined: the start arriving within the wait ends the wait",
			steps: []step{{seq: 2}, {seq: 1}, {seq: 0, at: 10 * time.Millisecond}},
			want:  []string{"s/0", "s/1", "s/2"},
		},
		{
			name:  "joined: critical first event is not held",
			steps: []step{{seq: 5, crit: true}, {seq: 6}, {at: wait, tick: true}},
			want:  []string{"s/5", "joined: Joined session s at event 5; its earlier events were not received.", "s/6"},
		},
		{
			name:  "flush releases everything with its gaps",
			steps: []step{{seq: 0}, {seq: 2}, {seq: 5}},
			flush: true,
			want: []string{"s/0", "gap: Session s: event 1 never arrived.", "s/2",
				"gap: Session s: events 3 to 4 never arrived.", "s/5"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{ReorderWait: wait})
			for _, st := range tt.steps {
				if st.tick {
					e.Tick(t0.Add(st.at))
					continue
				}
				e.Handle(seqEvent("s", st.seq, st.crit), t0.Add(st.at))
			}
			if tt.flush {
				e.Flush(t0.Add(time.Millisecond))
			}
			var got []string
			for _, x := range r.log {
				switch {
				case x.diag != nil && x.diag.Code != "lifecycle":
					got = append(got, x.diag.Code+": "+x.diag.Message)
				case x.d != nil:
					got = append(got, x.d.Event.EventID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

func TestReorderWindowOverflow(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait, ReorderWindow: 2})
	for _, n := range []int64{0, 2, 3, 5} {
		e.Handle(seqEvent("s", n, false), t0)
	}
	// The third held event pushes out the lowest: 1 is given up, 2 and 3
	// follow; 5 still waits for 4.
	if got, want := r.events(), ids("s", 0, 2, 3); !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if d := r.diags("gap"); len(d) != 1 || d[0].Message != "Session s: event 1 never arrived." {
		t.Fatalf("diagnostics: %s", r.dump())
	}
	if got, want := e.NextDeadline(), t0.Add(wait); !got.Equal(want) {
		t.Fatalf("NextDeadline = %v, want %v", got, want)
	}
	e.Handle(seqEvent("s", 4, false), t0)
	if got, want := r.events(), ids("s", 0, 2, 3, 4, 5); !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if !e.NextDeadline().IsZero() {
		t.Fatal("a deadline is left with nothing held")
	}
}

func TestNextDeadlineAcrossSessions(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	for i, s := range []string{"a", "b", "c"} {
		at := t0.Add(time.Duration(3-i) * 10 * time.Millisecond)
		e.Handle(seqEvent(s, 0, false), at)
		e.Handle(seqEvent(s, 2, false), at)
	}
	// c's event arrived first (t0+10ms), so it is released first.
	if got, want := e.NextDeadline(), t0.Add(10*time.Millisecond+wait); !got.Equal(want) {
		t.Fatalf("NextDeadline = %v, want %v", got, want)
	}
	r.reset()
	e.Tick(t0.Add(20*time.Millisecond + wait))
	if got, want := r.events(), []string{"c/2", "b/2"}; !equal(got, want) {
		t.Fatalf("released %v, want %v", got, want)
	}
	if got, want := e.NextDeadline(), t0.Add(30*time.Millisecond+wait); !got.Equal(want) {
		t.Fatalf("NextDeadline = %v, want %v", got, want)
	}
}

// FuzzReorder turns its input into arrivals of events of three sessions, in
// any order, with copies, critical events and the clock moving on, and
// checks what the engine promises: no event is delivered twice, critical
// events are delivered at once, each session's events (critical ones too:
// they never overtake held events) come out in increasing order unless
// reported late, and after Flush every event received was delivered.
func FuzzReorder(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 0, 2, 0, 3})
	f.Add([]byte{1, 0, 2, 0, 1, 0, 0, 3, 40, 0, 3, 3, 5})
	f.Add([]byte{0x81, 0, 5, 4, 7, 0, 6, 1, 6, 0xfe, 30, 0, 0, 0, 4, 0, 1})
	f.Add([]byte{2, 0, 0, 1, 0, 2, 0, 0, 3, 1, 1, 2, 2, 0, 1, 1, 3})
	f.Add([]byte{3, 0, 9, 0, 8, 0, 7, 0, 6, 0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		cfg := Config{ReorderWait: wait}
		if data[0]&1 != 0 {
			cfg.ReorderWindow = 3
		}
		if data[0]&2 != 0 {
			cfg.MaxSessions = 2 // of three: sessions are forgotten and resumed
		}
		critMask := data[0] >> 1 // which sequence numbers (mod 7) are critical
		e, r := newTest(cfg)
		now := t0
		sent := map[string]bool{}
		for ops := data[1:]; len(ops) >= 2; ops = ops[2:] {
			op, arg := ops[0], ops[1]
			if op>>6 == 3 { // the clock moves on
				now = now.Add(time.Duration(arg) * 5 * time.Millisecond)
				if op&1 != 0 {
					e.Tick(now)
				}
				continue
			}
			s := fmt.Sprint("sess_", op%3)
			seq := int64(arg % 24)
			crit := critMask&(1<<(seq%7)) != 0
			x := seqEvent(s, seq, crit)
			dup := sent[x.EventID]
			sent[x.EventID] = true
			before := len(r.log)
			e.Handle(x, now)
			if crit && !dup {
				if !deliveredIn(r.log[before:], x.EventID) {
					t.Fatalf("critical %s was not delivered at once:%s", x.EventID, r.dump())
				}
			}
		}
		e.Flush(now)

		delivered := map[string]bool{}
		late := map[string]bool{}
		lastSeq := map[string]int64{}
		for _, x := range r.log {
			if x.diag != nil {
				if x.diag.Code == "late" {
					late[x.diag.EventID] = true
				}
				continue
			}
			if x.d.Kind != KindEvent {
				continue
			}
			ev := x.d.Event
			if delivered[ev.EventID] {
				t.Fatalf("%s delivered twice:%s", ev.EventID, r.dump())
			}
			delivered[ev.EventID] = true
			if late[ev.EventID] {
				continue
			}
			if last, ok := lastSeq[ev.SessionID]; ok && ev.Seq <= last {
				t.Fatalf("%s delivered after event %d and not reported late:%s", ev.EventID, last, r.dump())
			}
			lastSeq[ev.SessionID] = ev.Seq
		}
		for id := range sent {
			if !delivered[id] {
				t.Fatalf("%s was received and never delivered:%s", id, r.dump())
			}
		}
		if !e.NextDeadline().IsZero() {
			t.Fatal("work is left after Flush")
		}
	})
}

// deliveredIn reports whether event id was delivered in log.
func deliveredIn(log []record, id string) bool {
	for _, x := range log {
		if x.d != nil && x.d.Kind == KindEvent && x.d.Event.EventID == id {
			return true
		}
	}
	return false
}

// Holding tells whether events wait for earlier ones: none at first, one
// after an event numbered ahead, none once the missing one released it.
func TestHolding(t *testing.T) {
	e, r := newTest(Config{})
	steps := []struct {
		seq  int64
		want bool
	}{{0, false}, {2, true}, {3, true}, {1, false}}
	for _, s := range steps {
		e.Handle(seqEvent("s", s.seq, false), t0)
		if got := e.Holding(); got != s.want {
			t.Fatalf("after number %d, Holding() = %v, want %v", s.seq, got, s.want)
		}
	}
	if got := r.events(); len(got) != 4 {
		t.Fatalf("delivered %v, want all four", got)
	}
}
