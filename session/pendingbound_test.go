package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// A reply token carried by two pending prompts, of one agent or of two
// (one back channel takes the replies of every agent, by token alone):
// neither prompt can be answered, the user hears one critical line, and
// nothing is sent.
func TestReusedTokenNeitherOffered(t *testing.T) {
	for _, agents := range [][2]string{{"A", "A"}, {"A", "B"}} {
		t.Run(agents[0]+agents[1], func(t *testing.T) {
			e, r := newTest(Config{})
			e.Handle(of(agents[0], confirmation("s", -1, "same")), t0)
			second := of(agents[1], confirmation("t", -1, "same"))
			e.Handle(second, t0)
			third := of(agents[1], confirmation("u", -1, "same"))
			e.Handle(third, t0)

			if p := e.Pending(); len(p) != 0 {
				t.Fatalf("%d prompts offered for an answer", len(p))
			}
			for n := 1; n <= 3; n++ {
				_, err := e.Confirm(n, protocol.DecisionAccept, t0)
				if err == nil || !strings.Contains(err.Error(), "reply token") {
					t.Fatalf("prompt %d: %v", n, err)
				}
				if why := e.WhyNot(n, t0); why == nil || why.Error() != err.Error() {
					t.Fatalf("WhyNot(%d) = %v, Confirm said %v", n, why, err)
				}
			}
			warns := r.deliveries(KindSafetyWarning)
			if len(warns) != 1 || !strings.Contains(warns[0].Note, "reusing reply tokens") {
				t.Fatalf("warnings: %s", r.dump())
			}
			if n := len(r.deliveries(KindPromptNotOffered)); n != 2 {
				t.Fatalf("%d prompts announced as not offered; want 2: %s", n, r.dump())
			}
			// The default decision applies when their time runs out.
			e.Tick(at(61))
			if n := len(r.deliveries(KindPromptExpired)); n != 3 {
				t.Fatalf("%d expired: %s", n, r.dump())
			}
		})
	}
}

// A prompt whose token was only used by a prompt already settled is
// offered, as before (with a diagnostic).
func TestTokenReusedAfterSettledIsOffered(t *testing.T) {
	e, _ := newTest(Config{})
	e.Handle(confirmation("s", -1, "same"), t0)
	e.Handle(ev("s", -1, "session.completed"), t0)
	e.Handle(confirmation("t", -1, "same"), t0)
	if len(e.Pending()) != 1 {
		t.Fatal("a prompt reusing the token of a withdrawn prompt is not offered")
	}
}

// floodPrompt is prompt i of agent a, in a session of its own.
func floodPrompt(a string, i int) *protocol.Event {
	p := of(a, confirmation(fmt.Sprintf("%s%d", a, i), -1, fmt.Sprintf("%s%d", a, i)))
	return p
}

// A producer that floods prompts: at most MaxPendingPerAgent of one agent
// and MaxPending of all are offered; the rest are announced as not offered,
// with one critical line per flood.
func TestPromptFlood(t *testing.T) {
	e, r := newTest(Config{})
	for i := range defaultMaxPendingPerAgent + 50 {
		e.Handle(floodPrompt("A", i), t0)
	}
	if n := len(e.Pending()); n != defaultMaxPendingPerAgent {
		t.Fatalf("%d prompts of one agent pending", n)
	}
	not := r.deliveries(KindPromptNotOffered)
	if len(not) != 50 || not[0].Prompt == nil || not[0].Prompt.State != PromptNotOffered || not[0].Note == "" {
		t.Fatalf("%d prompts not offered", len(not))
	}
	if w := r.deliveries(KindSafetyWarning); len(w) != 1 || !strings.Contains(w[0].Note, "256") {
		t.Fatalf("warnings: %v", w)
	}
	// Another agent is still heard.
	e.Handle(floodPrompt("B", 0), t0)
	if n := len(e.Pending()); n != defaultMaxPendingPerAgent+1 {
		t.Fatalf("agent B's prompt is not offered: %d pending", n)
	}
	// Overall bound: more agents.
	r.reset()
	for _, a := range []string{"C", "D", "E", "F"} {
		for i := range defaultMaxPendingPerAgent {
			e.Handle(floodPrompt(a, i), t0)
		}
	}
	if n := len(e.Pending()); n != defaultMaxPending {
		t.Fatalf("%d prompts pending in all", n)
	}
	if w := r.deliveries(KindSafetyWarning); len(w) != 1 {
		t.Fatalf("warnings about the overall flood: %d", len(w))
	}
	// The flood drains; a new one is told again.
	r.reset()
	for i := range defaultMaxPendingPerAgent {
		e.Handle(of("A", ev(fmt.Sprintf("A%d", i), -1, "session.completed")), t0)
	}
	for i := range defaultMaxPendingPerAgent + 1 {
		e.Handle(floodPrompt("A", 1000+i), t0)
	}
	if w := r.deliveries(KindSafetyWarning); len(w) != 1 {
		t.Fatalf("warnings about the second flood: %s", r.dump())
	}
	// Answering a prompt not offered says why.
	if err := e.WhyNot(999999, t0); err == nil {
		t.Fatal("an unknown prompt can be answered")
	}
}

// End with nothing told to the producer (no subscription to close): the
// prompts are left unanswered, not expired, and the agent still waits.
func TestEndLeavesPromptsUnanswered(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(confirmation("s", -1, "a"), t0)
	e.Handle(clarification("t", -1, "b"), t0)
	e.End(at(1), EndLeft)
	left := r.deliveries(KindPromptLeft)
	if len(left) != 2 || len(r.deliveries(KindPromptExpired)) != 0 {
		t.Fatalf("delivered %v", kinds(r))
	}
	p := left[0].Prompt
	if p.State != PromptLeft || p.Decision != "" {
		t.Fatalf("prompt left: state %v, decision %q", p.State, p.Decision)
	}
	if err := e.WhyNot(1, at(1)); err == nil || !strings.Contains(err.Error(), "left unanswered") {
		t.Fatalf("WhyNot: %v", err)
	}
	if len(e.Pending()) != 0 || !e.NextDeadline().IsZero() {
		t.Fatal("work is left after End")
	}
}

// A confirmation that breaks the default-decision rules but cannot be
// answered here is still warned about, without telling the user to answer it.
func TestRuleBreakingPromptNotOffered(t *testing.T) {
	e, r := newTest(Config{MaxPendingPerAgent: 1})
	for i := range 2 {
		p := floodPrompt("A", i)
		p.RiskLevel, p.Reversibility, p.DefaultDecision = "high", "irreversible", protocol.DecisionAccept
		e.Handle(p, t0)
	}
	var notes []string
	for _, w := range r.deliveries(KindSafetyWarning) {
		notes = append(notes, w.Note)
	}
	if len(notes) != 3 || !strings.Contains(notes[0], "Answer it yourself") ||
		strings.Contains(notes[1], "Answer it yourself") || !strings.Contains(notes[1], "cannot be answered here") {
		t.Fatalf("warnings: %q", notes)
	}
}

// A prompt beyond the bound that carries the reply token of a prompt
// offered earlier: an answer to that one could settle this one, so that
// one is not offered any more either, and the user is told.
func TestFloodPromptSharesToken(t *testing.T) {
	e, r := newTest(Config{MaxPendingPerAgent: 2})
	e.Handle(floodPrompt("A", 0), t0)
	e.Handle(floodPrompt("A", 1), t0)
	hidden := floodPrompt("A", 2)
	hidden.ReplyToken = "rpl_A0"
	e.Handle(hidden, t0)
	if _, err := e.Confirm(1, protocol.DecisionAccept, t0); err == nil || !strings.Contains(err.Error(), "reply token") {
		t.Fatalf("prompt 1 shares its token with a prompt not offered, yet: %v", err)
	}
	if p := e.Pending(); len(p) != 1 || p[0].Number != 2 {
		t.Fatalf("pending %v", p)
	}
	not := r.deliveries(KindPromptNotOffered)
	if len(not) != 1 || !strings.Contains(not[0].Note, "also on prompt 1") {
		t.Fatalf("not offered: %s", r.dump())
	}
	if w := r.deliveries(KindSafetyWarning); len(w) != 2 || !strings.Contains(w[1].Note, "prompt 1 and a prompt not offered") {
		t.Fatalf("warnings: %s", r.dump())
	}
}
