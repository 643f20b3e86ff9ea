package policy

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

func confirmation(agent, session, tool, risk string, undo protocol.Undo) Facts {
	return Facts{Type: TypeConfirmation, Agent: agent, Session: session, Tool: tool, Risk: risk, Undo: undo,
		Irreversible: undo == protocol.UndoCannot || undo == protocol.UndoUnsaid}
}

// The gate checks a remembered "accept always" at every use, against the
// prompt it was given to, and says why when it does not apply.
func TestGateAlways(t *testing.T) {
	answered := confirmation("a", "s", "save", "low", protocol.UndoReversible)
	tests := []struct {
		name string
		f    Facts
		want Outcome
	}{
		{"same stakes", answered, Outcome{Verdict: Accept, By: ByAlways}},
		{"lower risk", confirmation("a", "s", "save", "low", protocol.UndoWithEffort), Outcome{Verdict: Accept, By: ByAlways}},
		{"other agent", confirmation("b", "s", "save", "low", protocol.UndoReversible), Outcome{Verdict: Ask}},
		{"other session", confirmation("a", "t", "save", "low", protocol.UndoReversible), Outcome{Verdict: Ask}},
		{"other tool", confirmation("a", "s", "send", "low", protocol.UndoReversible), Outcome{Verdict: Ask}},
		{"higher risk", confirmation("a", "s", "save", "medium", protocol.UndoReversible),
			Outcome{Verdict: Ask, AskAgain: "its risk is medium, higher than the low risk of the one you answered"}},
		{"risk not given", confirmation("a", "s", "save", "", protocol.UndoReversible),
			Outcome{Verdict: Ask, AskAgain: "its risk is not given, and the one you answered was of low risk"}},
		{"cannot be undone", confirmation("a", "s", "save", "low", protocol.UndoCannot),
			Outcome{Verdict: Ask, AskAgain: "it cannot be undone, and the one you answered could be"}},
		{"does not say", confirmation("a", "s", "save", "low", protocol.UndoUnsaid),
			Outcome{Verdict: Ask, AskAgain: "it does not say whether it can be undone, and the one you answered could be"}},
		{"irreversible high", confirmation("a", "s", "save", "high", protocol.UndoCannot),
			Outcome{Verdict: Ask, AskAgain: "it cannot be undone and is high risk"}},
		{"question", Facts{Type: TypeClarification, Agent: "a", Session: "s", Tool: "save"}, Outcome{Verdict: Ask}},
	}
	g := NewGate(nil, false)
	if err := g.Remember(answered, Accept); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.Decide(tt.f); got != tt.want {
				t.Errorf("Decide(%+v) = %+v, want %+v", tt.f, got, tt.want)
			}
		})
	}
	// A riskier prompt is left to the policy and --auto-reply.
	g = NewGate(nil, true)
	_ = g.Remember(answered, Accept)
	got := g.Decide(confirmation("a", "s", "save", "high", protocol.UndoCannot))
	if got.Verdict != Reject || got.By != ByAutoReply || got.AskAgain == "" {
		t.Errorf("with --auto-reply reject: %+v", got)
	}
}

func TestGateRememberRefuses(t *testing.T) {
	g := NewGate(nil, false)
	for _, tc := range []struct {
		f       Facts
		verdict string
		want    string
	}{
		{confirmation("a", "s", "", "low", protocol.UndoReversible), Accept, "does not name a tool"},
		{confirmation("a", "s", "rm", "high", protocol.UndoCannot), Accept, "cannot be undone and is high risk, so you will be asked every time"},
		{confirmation("a", "s", "rm", "", protocol.UndoUnsaid), Accept, "does not say whether it can be undone and its risk is not given"},
		{Facts{Type: TypeClarification, Tool: "x"}, Accept, "questions are always asked"},
		{confirmation("a", "s", "rm", "low", protocol.UndoReversible), "maybe", "not a decision"},
	} {
		if err := g.Remember(tc.f, tc.verdict); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Remember(%+v, %s) = %v, want %q", tc.f, tc.verdict, err, tc.want)
		}
	}
	// Rejecting always is allowed for anything with a tool.
	hi := confirmation("a", "s", "rm", "high", protocol.UndoCannot)
	if err := g.Remember(hi, Reject); err != nil {
		t.Fatal(err)
	}
	if got := g.Decide(hi); got != (Outcome{Verdict: Reject, By: ByAlways}) {
		t.Errorf("reject always: %+v", got)
	}
}

// fuzzFacts builds the facts of one prompt from a byte.
func fuzzFacts(b byte) Facts {
	f := confirmation([]string{"a", "b"}[b&1], []string{"s", "t"}[b>>1&1], []string{"", "save", "rm", "pay"}[b>>2&3],
		[]string{"low", "medium", "high", ""}[b>>4&3], protocol.Undo(b>>6&3))
	return f
}

// FuzzGate drives a gate with any stream of "always" answers and prompts,
// under any policy Parse accepts, and checks what it may never do: accept
// a high-stakes prompt without a rule allowing exactly that, accept by an
// "always" answer the user did not give to a prompt of the same agent,
// session and tool no less risky, decide a question, or reject by
// --auto-reply when it is off.
func FuzzGate(f *testing.F) {
	f.Add([]byte(example), []byte{0x45, 0x85, 0xc5, 0x05, 0x44}, true)
	f.Add([]byte(`{"rules":[{"name":"r","risk":["low"],"decision":"accept"}]}`), []byte{0x08, 0x48, 0x88, 0xc8}, false)
	f.Add([]byte(`{"rules":[]}`), []byte{0x04, 0x84, 0x05, 0x85, 0x06}, false)
	f.Fuzz(func(t *testing.T, policyJSON, ops []byte, autoReject bool) {
		p, err := Parse(policyJSON)
		if err != nil {
			p = nil
		}
		if len(ops) > 1000 {
			return
		}
		checkGate(t, p, ops, autoReject)
	})
}

// checkGate runs the stream ops through a gate of policy p.
func checkGate(t *testing.T, p *Policy, ops []byte, autoReject bool) {
	t.Helper()
	g := NewGate(p, autoReject)
	type key struct{ agent, session, tool string }
	model := map[key]Facts{} // accept always answers kept, and the prompt answered
	for i, b := range ops {
		facts := fuzzFacts(b)
		if i%5 == 4 {
			facts.Type = TypeClarification
		}
		k := key{facts.Agent, facts.Session, facts.Tool}
		if i%3 == 0 { // the user types "accept always" or "reject always" for this prompt
			verdict := []string{Accept, Reject}[i%2]
			if g.Remember(facts, verdict) == nil {
				if facts.Type != TypeConfirmation || facts.Tool == "" || verdict == Accept && facts.HighStakes() {
					t.Fatalf("remembered %s for %+v", verdict, facts)
				}
				delete(model, k)
				if verdict == Accept {
					model[k] = facts
				}
			}
			continue
		}
		out := g.Decide(facts)
		if facts.Type != TypeConfirmation && out.Verdict != Ask {
			t.Fatalf("question decided: %+v", out)
		}
		if out.By == ByAutoReply && (!autoReject || out.Verdict != Reject) {
			t.Fatalf("auto-reply decided %+v (on: %v)", out, autoReject)
		}
		if (out.Verdict == Ask) != (out.By == ByNobody) {
			t.Fatalf("inconsistent outcome %+v", out)
		}
		if out.Verdict != Accept {
			continue
		}
		switch out.By {
		case ByAlways:
			a, ok := model[k]
			if !ok || facts.HighStakes() || riskRank(facts.Risk) > riskRank(a.Risk) || facts.Irreversible && !a.Irreversible {
				t.Fatalf("always accepted %+v; answered %+v (%v)", facts, a, ok)
			}
		case ByPolicy:
			var rule *Rule
			for j := range p.Rules {
				if p.Rules[j].Name == out.Rule {
					rule = &p.Rules[j]
				}
			}
			if rule == nil || rule.Decision != Accept || !rule.matches(facts) || facts.HighStakes() && !rule.AllowIrreversibleHigh {
				t.Fatalf("rule %q accepted %+v", out.Rule, facts)
			}
		default:
			t.Fatalf("accepted by %d: %+v", out.By, facts)
		}
	}
}

// TestGateRandom runs FuzzGate's checks over seeded random streams, under
// the example policy and a policy that accepts every low risk, in CI.
func TestGateRandom(t *testing.T) {
	for _, src := range []string{example, `{"rules":[{"name":"r","risk":["low"],"decision":"accept"}]}`} {
		p, err := Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(8) {
			rng := rand.New(rand.NewPCG(seed, 1))
			ops := make([]byte, 500)
			for i := range ops {
				ops[i] = byte(rng.IntN(256))
			}
			checkGate(t, p, ops, seed%2 == 0)
			checkGate(t, nil, ops, seed%2 == 1)
		}
	}
}

// BenchmarkGateDecide is one decision with the example policy and the
// always memory full.
func BenchmarkGateDecide(b *testing.B) {
	p, err := Parse([]byte(example))
	if err != nil {
		b.Fatal(err)
	}
	g := NewGate(p, true)
	for i := range maxAlways {
		_ = g.Remember(confirmation("a", "s", strings.Repeat("t", i%50)+string(rune('a'+i/50)), "low", protocol.UndoReversible), Accept)
	}
	facts := make([]Facts, 256)
	for i := range facts {
		facts[i] = fuzzFacts(byte(i))
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g.Decide(facts[i%len(facts)])
	}
}

// Issue 23 item 6: a gate decides for the agent For names, as the user
// configured it. A producer under another label saying it is build-bot
// does not get the rule written for the real build-bot.
func TestGateBindsRulesToTheConfiguredAgent(t *testing.T) {
	p, err := Parse([]byte(`{"rules":[{"name":"bb","agent":"build-bot","label":"build","tool":"delete_tmp_*",
		"decision":"accept","allow_irreversible_high":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	claim := Facts{Type: TypeConfirmation, Tool: "delete_tmp_all", Agent: "build-bot", Risk: "high", Irreversible: true,
		Configured: Configured{Label: "build"}} // what the prompt says is never used
	tests := []struct {
		whom Configured
		want string
	}{
		{Configured{Label: "build", Endpoint: "https://build.example/"}, Accept},
		{Configured{Label: "evil", Endpoint: "https://build.example/"}, Ask},
		{Configured{Endpoint: "https://build.example/"}, Ask},
		{Configured{}, Ask},
	}
	for _, tt := range tests {
		if got := NewGate(p, false).For(tt.whom).Decide(claim); got.Verdict != tt.want {
			t.Errorf("for %+v: %+v, want %s", tt.whom, got, tt.want)
		}
	}
}
