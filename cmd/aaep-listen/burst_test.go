package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// Replayed history holding a prompt and the event settling it gives the
// same lines, and sends the same answers, whether its frames come in one
// burst or one at a time: the prompt is told when it comes, then settled in
// its place. With --auto-reply reject, the policy answers each prompt as it
// is told (the producer ignores an answer to one already settled).
func TestBurstHoldsSettledPrompts(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	confirm := func(id, tok string) *protocol.Event { return payPrompt(now, id, "a", tok) }
	moved := &protocol.Event{Type: protocol.TypeStateChanged, EventID: "evt_moved", SessionID: "sess_evt_1",
		Producer: protocol.Producer{AgentID: "a"}, FromState: "awaiting_input", ToState: "calling_tool",
		SummaryNormal: "You accepted; paying.", Timestamp: now}

	for _, autoReject := range []bool{false, true} {
		var want string
		var wantSent int
		for _, oneBurst := range []bool{true, false} {
			l, out, conn := testListener(t, now, autoReject)
			// evt_1 was answered before we joined, evt_2 still waits.
			evs := []*protocol.Event{confirm("evt_1", "rpl_1"), moved, confirm("evt_2", "rpl_2")}
			if oneBurst {
				l.handle(evs...)
			} else {
				for _, ev := range evs {
					l.handle(ev)
				}
			}
			text := strings.Join(out.lines, "\n")
			if want == "" {
				want, wantSent = text, len(conn.sent)
				if missing := inOrder(text, []string{"Confirmation needed, prompt 1: Pay evt_1.", "paying", "Confirmation needed, prompt 2: Pay evt_2."}); missing != "" {
					t.Errorf("auto-reject %v: %q is missing or out of order:\n%s", autoReject, missing, text)
				}
				if !autoReject && !strings.Contains(text, "Prompt 1 was settled elsewhere") {
					t.Errorf("prompt 1 never said settled:\n%s", text)
				}
				continue
			}
			if text != want || len(conn.sent) != wantSent {
				t.Errorf("auto-reject %v: one frame at a time gives other lines (sent %d, want %d):\n%s\n\none burst:\n%s",
					autoReject, len(conn.sent), wantSent, text, want)
			}
		}
		if wantSent != map[bool]int{false: 0, true: 2}[autoReject] {
			t.Errorf("auto-reject %v: %d answers sent", autoReject, wantSent)
		}
	}
}

// A replayed history whose settled prompt is followed by other events
// before the one settling it is told in sequence order: the prompt, then
// the events after it, then its settling in the place of the event that
// settles it.
func TestBurstKeepsSequenceOrder(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ev := func(seq int64, set func(*protocol.Event)) *protocol.Event {
		e := &protocol.Event{Type: protocol.TypeToolInvoked, Tool: "read_file", EventID: fmt.Sprintf("evt_%d", seq), SessionID: "sess_h",
			Seq: seq, HasSeq: true, Producer: protocol.Producer{AgentID: "a"}, Timestamp: now, Urgency: protocol.UrgencyNormal}
		set(e)
		return e
	}
	state := func(from, to, says string) func(*protocol.Event) {
		return func(e *protocol.Event) {
			e.Type, e.FromState, e.ToState, e.SummaryNormal = protocol.TypeStateChanged, from, to, protocol.Text(says)
		}
	}
	says := func(s string) func(*protocol.Event) {
		return func(e *protocol.Event) { e.SummaryNormal = protocol.Text(s) }
	}
	for range 5 { // the same lines every time
		l, out, _ := testListener(t, now, false)
		l.handle(
			ev(0, state("idle", "awaiting_input", "Waiting for you.")),
			ev(1, func(e *protocol.Event) {
				p := payPrompt(now, "evt_1", "a", "rpl_1")
				p.SessionID, p.Seq, p.HasSeq = "sess_h", 1, true
				*e = *p
			}),
			ev(2, says("Step two said while waiting.")),
			ev(3, state("awaiting_input", "calling_tool", "You answered elsewhere; paying.")),
			ev(4, says("Step four.")),
		)
		text := strings.Join(out.lines, "\n")
		if missing := inOrder(text, []string{"Waiting for you", "Confirmation needed, prompt 1", "Step two", "Prompt 1 was settled elsewhere", "paying", "Step four"}); missing != "" {
			t.Fatalf("%q is missing or out of sequence order:\n%s", missing, text)
		}
	}
}
