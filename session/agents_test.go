package session

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// of makes e an event of agent a.
func of(a string, e *protocol.Event) *protocol.Event {
	e.Producer.AgentID = a
	return e
}

// Two agents share a session ID: nothing agent B sends withdraws, settles,
// makes stale or expires a prompt of agent A, and B's session is checked on
// its own.
func TestOtherAgentCannotSettlePrompts(t *testing.T) {
	changed := func(seq int64, from, to string) *protocol.Event {
		e := ev("s", seq, "state.changed")
		e.FromState, e.ToState = from, to
		return e
	}
	tests := []struct {
		name string
		b    []*protocol.Event // what agent B sends after A's prompt
	}{
		{"B completes", []*protocol.Event{ev("s", 0, "session.started"), ev("s", 1, "session.completed")}},
		{"B cancelled", []*protocol.Event{ev("s", 0, "session.started"), ev("s", 1, "session.cancelled")}},
		{"B errors", []*protocol.Event{ev("s", 0, "session.started"), ev("s", 1, "session.errored")}},
		{"B back to thinking", []*protocol.Event{ev("s", 0, "session.started"), changed(1, "awaiting_input", "thinking")}},
		{"B moves on", []*protocol.Event{ev("s", 0, "session.started"), changed(1, "awaiting_input", "calling_tool")}},
		{"B far ahead", []*protocol.Event{ev("s", 0, "session.started"), ev("s", 9, "session.errored")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{ReorderWait: wait})
			e.Handle(of("A", ev("s", 0, "session.started")), t0)
			e.Handle(of("A", confirmation("s", 1, "a1")), t0)
			for _, x := range tt.b {
				e.Handle(of("B", x), t0)
			}
			e.Tick(at(1))
			if got := len(e.Pending()); got != 1 {
				t.Fatalf("%d prompts pending after agent B's events; delivered %v", got, kinds(r))
			}
			if _, err := e.Confirm(1, protocol.DecisionReject, at(1)); err != nil {
				t.Fatalf("agent A's prompt cannot be answered: %v", err)
			}
			for _, x := range r.log {
				if x.diag != nil && x.diag.Code == "lifecycle" {
					t.Errorf("the two agents' sessions were mixed: %s", x.diag.Message)
				}
			}
		})
	}
}

// A prompt of agent A that comes after agent B already went further in a
// session of the same ID is not stale.
func TestOtherAgentLaterEventsLeavePromptFresh(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	e.Handle(of("B", ev("s", 0, "session.started")), t0)
	for seq := int64(1); seq < 8; seq++ {
		e.Handle(of("B", ev("s", seq, "progress.updated")), t0)
	}
	e.Handle(of("A", ev("s", 0, "session.started")), t0)
	e.Handle(of("A", confirmation("s", 1, "a1")), t0)
	if len(r.deliveries(KindPromptStale)) != 0 || len(e.Pending()) != 1 {
		t.Fatalf("agent A's prompt was taken for stale: %v", kinds(r))
	}
	for _, x := range r.log {
		if x.diag != nil {
			t.Errorf("diagnostic about two separate sessions: %s", x.diag.Message)
		}
	}
}

// Output chunks are tracked per agent: agent B completing an output of the
// same session and output IDs does not make A's next chunk a violation.
func TestOutputsPerAgent(t *testing.T) {
	e, r := newTest(Config{})
	for _, a := range []string{"A", "B"} {
		e.Handle(of(a, ev("s", 0, "session.started")), t0)
	}
	e.Handle(of("B", with(ev("s", 1, "output.streaming"), output("o", true))), t0)
	e.Handle(of("A", with(ev("s", 1, "output.streaming"), output("o", true))), t0)
	if d := r.diags("lifecycle"); len(d) != 0 {
		t.Fatalf("diagnostics: %s", r.dump())
	}
}

// Property: whatever agent B sends in a session with the same ID — any
// type, sequence number, state change, duplicates, gaps — agent A's prompt
// stays pending and answerable until its own deadline.
func TestOtherAgentNeverSettlesPromptsRandom(t *testing.T) {
	types := []string{"session.started", "session.completed", "session.errored", "session.cancelled",
		"state.changed", "progress.updated", "tool.invoked", "tool.completed", "output.streaming",
		"awaiting.confirmation", "awaiting.clarification", "handoff.requested"}
	states := []string{"thinking", "deciding", "awaiting_input", "calling_tool", "executing", ""}
	rng := rand.New(rand.NewPCG(12, 34))
	for run := range 300 {
		e, r := newTest(Config{ReorderWait: wait})
		e.Handle(of("A", ev("s", 0, "session.started")), t0)
		e.Handle(of("A", confirmation("s", 1, "a1")), t0)
		var sent []string
		for i := range rng.IntN(40) {
			x := of("B", ev("s", rng.Int64N(20)-1, types[rng.IntN(len(types))]))
			x.EventID = fmt.Sprintf("b/%d", i)
			x.FromState, x.ToState = states[rng.IntN(len(states))], states[rng.IntN(len(states))]
			x.ReplyToken = fmt.Sprintf("rpl_b%d", i)
			x.TimeoutSeconds = rng.Int64N(3)
			sent = append(sent, fmt.Sprintf("%s#%d %s>%s", x.Type, x.Seq, x.FromState, x.ToState))
			e.Handle(x, at(float64(i)/10))
		}
		e.Tick(at(30))
		if _, err := e.Confirm(1, protocol.DecisionReject, at(30)); err != nil {
			t.Fatalf("run %d: agent A's prompt %v after agent B sent %v\n%s", run, err, sent, r.dump())
		}
	}
}
