package session

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// orderLog is what the user hears of r's log, in order: event IDs, and every
// diagnostic as "code: message".
func orderLog(r *recorder) []string {
	var out []string
	for _, x := range r.log {
		switch {
		case x.diag != nil:
			out = append(out, x.diag.Code+": "+x.diag.Message)
		case x.d != nil && x.d.Kind == KindEvent:
			out = append(out, x.d.Event.EventID)
		}
	}
	return out
}

// A critical event is never held back, but it does not overtake the events
// of its session held only for reordering: those numbered before it go
// first, with the gap they leave declared. Issue 12: a lost frame (number 6)
// made state.changed 7 wait while session.errored 8 went ahead, and the
// engine then blamed the producer for an event after the session's end.
func TestCriticalReleasesHeldEventsBeforeIt(t *testing.T) {
	errored := func(seq int64) *protocol.Event { return ev("s", seq, "session.errored") }
	tests := []struct {
		name     string
		arrivals []*protocol.Event // at t0 + 1ms each
		tick     bool              // Tick once the reorder wait is over
		want     []string
	}{
		{
			name:     "a lost frame before a held event and the error",
			arrivals: []*protocol.Event{ev("s", 5, "progress.updated"), stateChanged(7, "thinking", "calling_tool", ""), errored(8)},
			tick:     true,
			want:     []string{"s/5", "gap: Session s: event 6 never arrived.", "s/7", "s/8"},
		},
		{
			name:     "held events after the critical one keep waiting",
			arrivals: []*protocol.Event{ev("s", 6, "progress.updated"), ev("s", 9, "progress.updated"), confirmation("s", 8, "a")},
			want:     []string{"gap: Session s: event 5 never arrived.", "s/6", "s/8"},
		},
		{
			name: "an event numbered before the error that arrives after it is late, not after the end",
			arrivals: []*protocol.Event{stateChanged(5, "thinking", "calling_tool", ""), errored(7),
				ev("s", 6, "progress.updated")},
			tick: true,
			want: []string{"s/5", "s/7",
				"late: Session s: event 6 arrived late, after later events; it is announced out of order.", "s/6"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{ReorderWait: wait})
			for i := range int64(5) {
				e.Handle(seqEvent("s", i, false), t0)
			}
			r.reset()
			now := t0
			for _, a := range tt.arrivals {
				now = now.Add(time.Millisecond)
				e.Handle(a, now)
			}
			if tt.tick {
				e.Tick(now.Add(wait))
			}
			if got := orderLog(r); !slices.Equal(got, tt.want) {
				t.Fatalf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

// A late join: a producer replays its buffer at connect, from the middle of
// a session, possibly shuffled. Events are held from the very first one, and
// announced in sequence order even when a critical event (a confirmation)
// is among them.
func TestLateJoinAnnouncedInOrder(t *testing.T) {
	joined := "joined: Joined session s at event 5; its earlier events were not received."
	tests := []struct {
		name string
		seqs []int64 // arrival order; 7 is a confirmation
		want []string
	}{
		{"in order", []int64{5, 6, 7, 8}, []string{joined, "s/5", "s/6", "s/7", "s/8"}},
		{"shuffled before the confirmation", []int64{6, 5, 7, 8}, []string{joined, "s/5", "s/6", "s/7", "s/8"}},
		{"shuffled after the confirmation", []int64{5, 7, 9, 6, 8}, []string{joined, "s/5", "s/7",
			"late: Session s: event 6 arrived late, after later events; it is announced out of order.", "s/6", "s/8", "s/9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{ReorderWait: wait})
			now := t0
			for _, n := range tt.seqs {
				now = now.Add(time.Millisecond)
				x := ev("s", n, "progress.updated")
				if n == 7 {
					x = confirmation("s", 7, "a")
				}
				e.Handle(x, now)
			}
			e.Tick(now.Add(wait))
			if got := orderLog(r); !slices.Equal(got, tt.want) {
				t.Fatalf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

// A producer that ignores Last-Event-ID resends its whole history: 180,000
// events, far more than the dedupe window of event IDs (1<<16) remembers.
// None is announced twice, and the drop is told in one line that counts,
// not one line per event. The reduced window is the same case made small:
// what matters is that the history is longer than the window.
func TestReplayBeyondDedupeWindow(t *testing.T) {
	for _, tt := range []struct {
		name   string
		window int
		n      int64
	}{
		{"180k events, default window", 0, 180_000},
		{"reduced window", 16, 1000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{DedupeWindow: tt.window})
			now := t0
			history := make([]*protocol.Event, tt.n)
			for i := range tt.n {
				history[i] = seqEvent("s", i, false)
				e.Handle(history[i], now)
			}
			if got := len(r.events()); int64(got) != tt.n {
				t.Fatalf("delivered %d of %d events the first time", got, tt.n)
			}
			r.reset()
			for _, x := range history { // the producer sends it all again
				now = now.Add(time.Microsecond)
				e.Handle(x, now)
			}
			e.Handle(seqEvent("s", tt.n, false), now) // then goes on
			if got := r.events(); !slices.Equal(got, ids("s", tt.n)) {
				t.Fatalf("delivered %d events after the replay, want only the new one; first: %v", len(got), got[:min(len(got), 3)])
			}
			want := fmt.Sprintf("duplicate: Session s: dropped %d events already announced (numbers 0 to %d); the producer sent them again.", tt.n, tt.n-1)
			if got := orderLog(r); !slices.Equal(got, []string{want, ids("s", tt.n)[0]}) {
				t.Fatalf("got\n\t%s\nwant one line for the burst, then the new event", strings.Join(got[:min(len(got), 5)], "\n\t"))
			}
		})
	}
}

// What the engine never announced is still announced when it arrives late,
// whatever the dedupe window forgot: a number given up as missing, or one
// from before the point where a session was joined.
func TestLateEventsNeverAnnouncedAreNotDropped(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait, DedupeWindow: 4})
	e.Handle(seqEvent("s", 5, false), t0)
	e.Handle(seqEvent("s", 7, false), t0)
	e.Tick(t0.Add(wait)) // joined at 5, 6 given up
	for i := int64(8); i < 20; i++ {
		e.Handle(seqEvent("s", i, false), t0.Add(wait))
	}
	r.reset()
	for _, n := range []int64{6, 2, 9, 6} { // 9 was announced; the second 6 too, by then
		e.Handle(seqEvent("s", n, false), t0.Add(wait))
	}
	e.Flush(t0.Add(wait))
	if got, want := r.events(), ids("s", 6, 2); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v:%s", got, want, r.dump())
	}
}

// A different event reusing an announced number (a producer bug) is not
// taken for a resend while the dedupe window still holds every ID seen: it
// is announced, reported late, as before.
func TestReusedNumberIsNotDroppedWhileTheWindowRemembers(t *testing.T) {
	e, r := newTest(Config{})
	for i := range int64(3) {
		e.Handle(seqEvent("s", i, false), t0)
	}
	other := seqEvent("s", 1, false)
	other.EventID = "s/other"
	e.Handle(other, t0)
	if got, want := r.events(), []string{"s/0", "s/1", "s/2", "s/other"}; !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v:%s", got, want, r.dump())
	}
}

// Bursts of resent events in many sessions at once are each told once, and
// only when they end.
func TestResentBurstsInManySessions(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	const n = 50
	for i := range n {
		s := fmt.Sprint("s", i)
		e.Handle(seqEvent(s, 0, false), t0)
		e.Handle(seqEvent(s, 1, false), t0)
	}
	r.reset()
	for i := range n { // every session resends its first event, interleaved
		e.Handle(seqEvent(fmt.Sprint("s", i), 0, false), t0)
	}
	for i := range n {
		e.Handle(seqEvent(fmt.Sprint("s", i), 1, false), t0)
	}
	if d := r.diags("duplicate"); len(d) != 0 {
		t.Fatalf("a burst was told before it ended: %v", d[0].Message)
	}
	for i := n - 1; i >= 0; i -= 2 { // half go on: their bursts end
		e.Handle(seqEvent(fmt.Sprint("s", i), 2, false), t0)
	}
	if got := len(r.diags("duplicate")); got != n/2 {
		t.Fatalf("%d bursts told, want %d", got, n/2)
	}
	if got, want := e.NextDeadline(), t0.Add(wait); !got.Equal(want) {
		t.Fatalf("NextDeadline = %v, want %v", got, want)
	}
	e.Tick(t0.Add(wait)) // the others end when nothing was resent for the wait
	d := r.diags("duplicate")
	if len(d) != n {
		t.Fatalf("%d bursts told, want %d", len(d), n)
	}
	seen := map[string]bool{}
	for _, x := range d {
		if seen[x.SessionID] || !strings.Contains(x.Message, "dropped 2 events already announced (numbers 0 to 1)") {
			t.Fatalf("burst of %s told as %q (twice: %v)", x.SessionID, x.Message, seen[x.SessionID])
		}
		seen[x.SessionID] = true
	}
	if !e.NextDeadline().IsZero() {
		t.Fatal("a deadline is left")
	}
}

// Tool pairing is not blamed on the producer when events are missing or an
// error overtook them: the completion may be among them.
func TestToolPairingNotBlamedForOurOrder(t *testing.T) {
	for _, tt := range []struct {
		name     string
		arrivals []*protocol.Event
	}{
		{"the completion arrives after the error that overtook it", []*protocol.Event{
			with(ev("s", 1, "tool.invoked"), tool("upload", "c1")),
			ev("s", 3, "session.errored"),
			with(ev("s", 2, "tool.completed"), tool("upload", "c1"))}},
		{"the invocation was lost", []*protocol.Event{
			ev("s", 1, "progress.updated"),
			with(ev("s", 3, "tool.completed"), tool("upload", "c1")),
			ev("s", 4, "session.completed")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{ReorderWait: wait})
			e.Handle(ev("s", 0, "session.started"), t0)
			now := t0
			for _, a := range tt.arrivals {
				e.Handle(a, now)
				now = now.Add(wait) // each waits out the reorder wait
				e.Tick(now)
			}
			e.Flush(now)
			if d := r.diags("lifecycle"); len(d) > 0 {
				t.Fatalf("the producer is blamed:%s", r.dump())
			}
		})
	}
}

// A session joined mid-way still has its unfinished tool calls reported:
// the numbers before the join say nothing of the calls seen since.
func TestJoinedSessionStillReportsUnfinishedTools(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	e.Handle(ev("s", 5, "progress.updated"), t0)
	e.Tick(t0.Add(wait)) // joined at 5
	e.Handle(with(ev("s", 6, "tool.invoked"), tool("upload", "c1")), t0.Add(wait))
	e.Handle(ev("s", 7, "session.completed"), t0.Add(wait))
	if d := r.diags("lifecycle"); len(d) != 1 || !strings.Contains(d[0].Message, "still running") {
		t.Fatalf("lifecycle diagnostics:%s", r.dump())
	}
}
