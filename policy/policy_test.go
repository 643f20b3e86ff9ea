package policy

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

const example = `{"rules": [
  {"name": "never-pay", "tool": "transfer_*", "decision": "reject"},
  {"name": "drafts", "tool": "save_draft", "risk": ["low"], "irreversible": false, "decision": "accept"},
  {"name": "trusted-cleanup", "agent": "janitor", "label": "jan*", "tool": "delete_tmp", "decision": "accept", "allow_irreversible_high": true},
  {"name": "build-drafts", "endpoint": "unix:/run/build.sock", "tool": "draft", "decision": "accept", "allow_irreversible_high": true},
  {"name": "questions", "type": "clarification", "decision": "ask"},
  {"name": "risky-mail", "tool": "send_*", "risk": ["medium", "high"], "decision": "reject"}
]}`

func TestDecide(t *testing.T) {
	p, err := Parse([]byte(example))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    Facts
		want ruleDecision
	}{
		{"payment rejected", Facts{Type: TypeConfirmation, Tool: "transfer_funds", Risk: "high", Irreversible: true}, ruleDecision{Reject, "never-pay"}},
		{"draft accepted", Facts{Type: TypeConfirmation, Tool: "save_draft", Risk: "low"}, ruleDecision{Accept, "drafts"}},
		{"draft of medium risk asked", Facts{Type: TypeConfirmation, Tool: "save_draft", Risk: "medium"}, ruleDecision{Verdict: Ask}},
		{"draft that cannot be undone asked", Facts{Type: TypeConfirmation, Tool: "save_draft", Risk: "low", Irreversible: true}, ruleDecision{Verdict: Ask}},
		{"allowed irreversible high", Facts{Type: TypeConfirmation, Tool: "delete_tmp", Agent: "janitor", Risk: "high", Irreversible: true,
			Configured: Configured{Label: "janitor"}}, ruleDecision{Accept, "trusted-cleanup"}},
		{"other agent asked", Facts{Type: TypeConfirmation, Tool: "delete_tmp", Agent: "intruder", Risk: "high", Irreversible: true,
			Configured: Configured{Label: "janitor"}}, ruleDecision{Verdict: Ask}},
		// Issue 23 item 6: the agent_id is what the producer says it is.
		{"claims the agent id under another label", Facts{Type: TypeConfirmation, Tool: "delete_tmp", Agent: "janitor", Risk: "high", Irreversible: true,
			Configured: Configured{Label: "mail", Endpoint: "https://janitor.example/"}}, ruleDecision{Verdict: Ask}},
		{"claims the agent id without a label", Facts{Type: TypeConfirmation, Tool: "delete_tmp", Agent: "janitor", Risk: "high", Irreversible: true,
			Configured: Configured{Endpoint: "https://janitor.example/"}}, ruleDecision{Verdict: Ask}},
		{"the endpoint configured", Facts{Type: TypeConfirmation, Tool: "draft", Agent: "anyone", Configured: Configured{Endpoint: "unix:/run/build.sock"}},
			ruleDecision{Accept, "build-drafts"}},
		{"another endpoint", Facts{Type: TypeConfirmation, Tool: "draft", Agent: "anyone", Configured: Configured{Endpoint: "unix:/run/build.sock2"}},
			ruleDecision{Verdict: Ask}},
		{"question", Facts{Type: TypeClarification}, ruleDecision{Ask, "questions"}},
		{"risky mail", Facts{Type: TypeConfirmation, Tool: "send_mail", Risk: "medium"}, ruleDecision{Reject, "risky-mail"}},
		{"no tool name never matches a tool glob", Facts{Type: TypeConfirmation, Risk: "medium"}, ruleDecision{Verdict: Ask}},
		{"unknown risk does not match a risk list", Facts{Type: TypeConfirmation, Tool: "send_mail"}, ruleDecision{Verdict: Ask}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.decide(tt.f); got != tt.want {
				t.Errorf("Decide(%+v) = %+v, want %+v", tt.f, got, tt.want)
			}
		})
	}
	// A hand-built policy that accepts by the agent id alone never decides.
	claimed := &Policy{Rules: []Rule{{Name: "bb", Agent: "build-bot", Decision: Accept, AllowIrreversibleHigh: true}}}
	if got := claimed.decide(Facts{Type: TypeConfirmation, Agent: "build-bot", Risk: "low"}); got.Verdict != Ask {
		t.Errorf("a rule by agent id alone decided: %+v", got)
	}
	var none *Policy
	if got := none.decide(Facts{Type: TypeConfirmation}); got.Verdict != Ask {
		t.Errorf("nil policy: %+v", got)
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"accept that could hit irreversible high", `{"rules":[{"name":"all","decision":"accept"}]}`,
			`rule "all": it accepts and could match an action that cannot be undone and is high risk`},
		{"accept high without irreversible false", `{"rules":[{"name":"h","risk":["high"],"decision":"accept"}]}`, `allow_irreversible_high`},
		{"unknown field", `{"rules":[{"name":"a","decision":"ask","tools":"x"}]}`, `unknown field "tools"`},
		{"accept by the agent id alone", `{"rules":[{"name":"bb","agent":"build-bot","tool":"delete_tmp_*","decision":"accept","allow_irreversible_high":true}]}`,
			`rule "bb": it accepts the prompts of any producer that says its agent_id is "build-bot", as any producer can; add the "label"`},
		{"bad label pattern", `{"rules":[{"name":"l","label":"[","decision":"reject"}]}`, `"label" is not a valid pattern`},
		{"bad decision", `{"rules":[{"name":"a","decision":"maybe"}]}`, `"decision" must be`},
		{"bad risk", `{"rules":[{"name":"a","risk":["huge"],"decision":"ask"}]}`, `"risk" may list`},
		{"bad glob", `{"rules":[{"name":"a","tool":"[x","decision":"ask"}]}`, `"tool" is not a valid pattern`},
		{"no name", `{"rules":[{"decision":"ask"}]}`, `rule 1: "name" is required`},
		{"name twice", `{"rules":[{"name":"a","decision":"ask"},{"name":"a","decision":"ask"}]}`, `used twice`},
		{"question answered", `{"rules":[{"name":"q","type":"clarification","decision":"reject"}]}`, `questions are always asked`},
		{"bad type", `{"rules":[{"name":"q","type":"handoff","decision":"ask"}]}`, `"type" must be`},
		{"trailing data", `{"rules":[]} {}`, `more after`},
		{"not JSON", `rules: []`, `not a policy`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestFactsOf(t *testing.T) {
	no := false
	tests := []struct {
		name string
		ev   protocol.Event
		tool string
		want Facts
	}{
		{"says nothing: assume irreversible", protocol.Event{Type: protocol.TypeAwaitingConfirmation, Producer: protocol.Producer{AgentID: "a"}, SessionID: "s"},
			"rm", Facts{Type: TypeConfirmation, Tool: "rm", Agent: "a", Session: "s", Irreversible: true}},
		{"reversible", protocol.Event{Type: protocol.TypeAwaitingConfirmation, Reversibility: "reversible_with_effort", RiskLevel: "low", Tool: "own"},
			"rm", Facts{Type: TypeConfirmation, Tool: "own", Risk: "low", Undo: protocol.UndoWithEffort}},
		{"flag false, reversibility irreversible: cannot be undone", protocol.Event{Type: protocol.TypeAwaitingConfirmation, Irreversible: &no, Reversibility: "irreversible"},
			"", Facts{Type: TypeConfirmation, Undo: protocol.UndoCannot, Irreversible: true}},
		{"flag false: can be undone", protocol.Event{Type: protocol.TypeAwaitingConfirmation, Irreversible: &no},
			"", Facts{Type: TypeConfirmation, Undo: protocol.UndoReversible}},
		{"unknown risk level counts as not given", protocol.Event{Type: protocol.TypeAwaitingConfirmation, RiskLevel: "extreme", Irreversible: &no},
			"", Facts{Type: TypeConfirmation, Undo: protocol.UndoReversible}},
		{"question", protocol.Event{Type: protocol.TypeAwaitingClarify}, "", Facts{Type: TypeClarification, Irreversible: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FactsOf(&tt.ev, tt.tool); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAlways(t *testing.T) {
	var a alwaysMemory
	f := Facts{Type: TypeConfirmation, Agent: "a1", Session: "s1", Tool: "save_draft", Risk: "low"}
	a.set(f, Accept)
	if r, ok := a.get(f); !ok || r.verdict != Accept || r.answered != f {
		t.Fatalf("got %+v %v", r, ok)
	}
	for _, k := range [][3]string{{"a1", "s2", "save_draft"}, {"a1", "s1", "send_mail"}, {"a1", "s1", ""}, {"a2", "s1", "save_draft"}} {
		if _, ok := a.get(Facts{Agent: k[0], Session: k[1], Tool: k[2]}); ok {
			t.Errorf("%v remembered", k)
		}
	}
	for i := range maxAlways {
		a.set(Facts{Session: "x", Tool: string(rune('a'+i%26)) + strings.Repeat("z", i/26)}, Reject)
	}
	if _, ok := a.get(f); ok {
		t.Error("the oldest answer was not forgotten")
	}
	if len(a.m) != maxAlways || len(a.order) != maxAlways {
		t.Errorf("holds %d/%d, want %d", len(a.m), len(a.order), maxAlways)
	}
}

// FuzzParse: Parse never panics, and a policy it accepts never accepts a
// high-stakes action without a rule that allows it.
func FuzzParse(f *testing.F) {
	f.Add([]byte(example), "delete_tmp", "janitor", "high", true)
	f.Add([]byte(`{"rules":[{"name":"a","decision":"accept","irreversible":false}]}`), "x", "y", "", true)
	f.Add([]byte(`{"rules":[{"name":"a","risk":["low"],"decision":"accept"}]}`), "x", "y", "low", true)
	f.Fuzz(func(t *testing.T, data []byte, tool, agent, risk string, irrev bool) {
		p, err := Parse(data)
		if err != nil {
			return
		}
		for _, typ := range []string{TypeConfirmation, TypeClarification} {
			facts := Facts{Type: typ, Tool: tool, Agent: agent, Risk: risk, Irreversible: irrev}
			d := p.decide(facts)
			switch d.Verdict {
			case Ask, Accept, Reject:
			default:
				t.Fatalf("verdict %q", d.Verdict)
			}
			if d.Verdict != Ask && typ == TypeClarification {
				t.Fatalf("question decided %+v", d)
			}
			if d.Verdict == Accept && facts.HighStakes() {
				i := slices.IndexFunc(p.Rules, func(r Rule) bool { return r.Name == d.Rule })
				if i < 0 || !p.Rules[i].AllowIrreversibleHigh {
					t.Fatalf("rule %q accepted %+v without allow_irreversible_high", d.Rule, facts)
				}
			}
		}
	})
}

// A policy file is read only up to its limit: an endless one (a device,
// a pipe) is refused at once instead of filling memory.
func TestLoadEndlessFileRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Fatalf("this test needs /dev/zero: %v", err)
	}
	_, err := Load("/dev/zero")
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("Load(/dev/zero) = %v, want a refusal saying it is too large", err)
	}
}
