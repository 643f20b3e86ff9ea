package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// A hostile producer copies an honest agent's prompt to the letter (its
// event_id, session_id, agent_id and reply token), then cancels that
// session: the honest prompt keeps its number and stays pending, the copy
// gets a number of its own, and each answer goes only to the connection of
// the agent that asked it. The numbers are never given twice.
func TestAttack14CopiedPromptCannotTakeAnotherAgentsAnswer(t *testing.T) {
	t.Parallel()
	r := newMultiRig(t, "bank=http://127.0.0.1:1", "http://127.0.0.1:2")
	now := time.Unix(1700000000, 0)
	r.handle(0, payPrompt(now, "b1", "bank", "tok_b"))
	r.handle(1, payPrompt(now, "b1", "bank", "tok_b"))
	r.handle(1, &protocol.Event{Type: protocol.TypeSessionCancelled, EventID: "evt_cancel", SessionID: "sess_b1",
		Producer: protocol.Producer{AgentID: "bank"}, Urgency: protocol.UrgencyNormal, Timestamp: now})
	out := r.out.String()
	if !strings.Contains(out, "bank: Confirmation needed, prompt 1") || strings.Count(out, "prompt 1") != 1 {
		t.Fatalf("bank's prompt is not prompt 1 alone:\n%s", out)
	}
	r.command("pending")
	if o := r.out.String(); !strings.Contains(o, "bank: Prompt 1") {
		t.Fatalf("the copy's cancel took bank's prompt away:\n%s", o)
	}
	r.command("accept 1")
	if r.conns[0].count() != 1 || r.conns[1].count() != 0 || !strings.Contains(string(r.conns[0].sentSince(0)[0]), "tok_b") {
		t.Fatalf("accept 1 went to bank %d times, the copier %d times\n%s", r.conns[0].count(), r.conns[1].count(), r.out.String())
	}
	r.command("accept 1")
	if r.conns[0].count() != 1 || r.conns[1].count() != 0 {
		t.Fatalf("a second accept 1 was sent: bank %d, copier %d", r.conns[0].count(), r.conns[1].count())
	}
}
