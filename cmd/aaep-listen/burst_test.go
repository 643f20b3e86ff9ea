package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// A burst of replayed history that holds a prompt and the event settling it
// never offers the prompt; a prompt still waiting at the burst's end is
// offered, and answered by the policy then.
func TestBurstHoldsSettledPrompts(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	confirm := func(id, tok string) *protocol.Event { return payPrompt(now, id, "a", tok) }
	moved := &protocol.Event{Type: protocol.TypeStateChanged, EventID: "evt_moved", SessionID: "sess_evt_1",
		Producer: protocol.Producer{AgentID: "a"}, FromState: "awaiting_input", ToState: "calling_tool",
		SummaryNormal: "You accepted; paying.", Timestamp: now}

	for _, autoReject := range []bool{false, true} {
		l, out, conn := testListener(t, now, autoReject)

		// One burst: evt_1 was answered before we joined, evt_2 still waits.
		l.handle(confirm("evt_1", "rpl_1"), moved, confirm("evt_2", "rpl_2"))
		text := strings.Join(out.lines, "\n")
		for _, want := range []string{
			"An earlier prompt is already settled and cannot be answered: Pay evt_1.",
			"Confirmation needed, prompt 2: Pay evt_2.",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("auto-reject %v: output lacks %q:\n%s", autoReject, want, text)
			}
		}
		if strings.Contains(text, "Confirmation needed, prompt 1") {
			t.Errorf("the settled prompt was offered:\n%s", text)
		}
		if want := map[bool]int{false: 0, true: 1}[autoReject]; len(conn.sent) != want ||
			want == 1 && !strings.Contains(string(conn.sent[0]), `"reply_token":"rpl_2"`) {
			t.Errorf("auto-reject %v: sent %q", autoReject, conn.sent)
		}
	}
}

// A replayed history whose settled prompt is followed by other events
// before the one settling it is told in sequence order: the prompt, said
// settled, comes before the events after it, never after them.
func TestBurstKeepsSequenceOrder(t *testing.T) {
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
		if missing := inOrder(text, []string{"Waiting for you", "already settled", "Step two", "paying", "Step four"}); missing != "" {
			t.Fatalf("%q is missing or out of sequence order:\n%s", missing, text)
		}
		if strings.Contains(text, "Confirmation needed") {
			t.Fatalf("the settled prompt was offered:\n%s", text)
		}
	}
}
