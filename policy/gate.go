package policy

import (
	"errors"
	"fmt"

	"github.com/aaep-term/aaep-term/protocol"
)

// Gate is the one place a prompt is decided without the user: "always"
// answers, the policy file's rules and --auto-reply reject all go through
// Decide, which checks the prompt's own facts at the moment of use. It never
// accepts an action that cannot be undone and is high risk (or of unknown
// risk) unless a policy rule says allow_irreversible_high for exactly it.
// A Gate decides for one agent, the one For names. It is not safe for
// concurrent use.
type Gate struct {
	policy     *Policy
	autoReject bool
	always     alwaysMemory
	whom       Configured
}

// Configured is an agent as the user configured it, never as a producer
// says it is: policy rules with "label" or "endpoint" match these.
type Configured struct {
	Label    string // the label the user gave the endpoint; "" for none
	Endpoint string // the endpoint as the user gave it
}

// For binds g to the agent whose prompts it decides, as the user
// configured it, and returns g. Every Facts it decides is matched with
// whom, whatever the prompt says.
func (g *Gate) For(whom Configured) *Gate {
	g.whom = whom
	return g
}

// NewGate returns a gate deciding by p (nil: no policy file) and, when
// autoReject is set, rejecting every confirmation nothing else decides.
func NewGate(p *Policy, autoReject bool) *Gate {
	return &Gate{policy: p, autoReject: autoReject}
}

// Source says who decided a prompt without the user.
type Source uint8

// Sources of an automatic decision.
const (
	ByNobody    Source = iota // not decided: ask the user
	ByAlways                  // an "always" answer the user typed
	ByPolicy                  // a rule of the policy file
	ByAutoReply               // --auto-reply reject
)

// Outcome is what the gate decided about one prompt.
type Outcome struct {
	Verdict string // Ask, Accept or Reject
	By      Source
	Rule    string // the policy rule, when By is ByPolicy
	// AskAgain, when not empty, says in words why a remembered "accept
	// always" did not apply to this prompt ("it cannot be undone and is
	// high risk"); the user is asked unless another source decided.
	AskAgain string
}

// Decide returns what is decided about the prompt f without asking: an
// "always" answer for its tool in its session of its agent first, then the
// policy file, then --auto-reply reject. Questions are always asked.
func (g *Gate) Decide(f Facts) Outcome {
	f.Configured = g.whom
	if f.Type != TypeConfirmation {
		return Outcome{Verdict: Ask}
	}
	var out Outcome
	if r, ok := g.always.get(f); ok {
		why := ""
		if r.verdict == Accept {
			why = riskier(f, r.answered)
		}
		if why == "" {
			return g.safe(f, Outcome{Verdict: r.verdict, By: ByAlways})
		}
		out.AskAgain = why
	}
	if d := g.policy.decide(f); d.Verdict != Ask {
		out.Verdict, out.By, out.Rule = d.Verdict, ByPolicy, d.Rule
		return g.safe(f, out)
	}
	if g.autoReject {
		out.Verdict, out.By, out.Rule = Reject, ByAutoReply, ""
		return out
	}
	out.Verdict = Ask
	return out
}

// safe is the last check before an outcome leaves the gate: an accept of a
// high-stakes prompt stands only when a policy rule allows exactly that.
func (g *Gate) safe(f Facts, out Outcome) Outcome {
	if out.Verdict != Accept || !f.HighStakes() {
		return out
	}
	if out.By == ByPolicy {
		for _, r := range g.policy.Rules {
			if r.Name == out.Rule && r.AllowIrreversibleHigh {
				return out
			}
		}
	}
	return Outcome{Verdict: Ask, AskAgain: out.AskAgain}
}

// Remember keeps an "always" answer (Accept or Reject) given to the prompt
// f, for every later confirmation about its tool in its session of its
// agent. The error says in words why it cannot be kept: the prompt names no
// tool, or it is an accept of an action that cannot be undone and is high
// risk.
func (g *Gate) Remember(f Facts, verdict string) error {
	switch {
	case verdict != Accept && verdict != Reject:
		return fmt.Errorf("%q is not a decision that can be remembered", verdict)
	case f.Type != TypeConfirmation:
		return errors.New("questions are always asked")
	case f.Tool == "":
		return errors.New("it does not name a tool, so always cannot apply")
	case verdict == Accept && f.HighStakes():
		return errors.New(highStakesWords(f) + ", so you will be asked every time")
	}
	g.always.set(f, verdict)
	return nil
}

// riskier says in words how the prompt f is riskier than answered, the
// prompt an "accept always" was given to, or "" when it is not.
func riskier(f, answered Facts) string {
	switch {
	case f.HighStakes():
		return highStakesWords(f)
	case riskRank(f.Risk) > riskRank(answered.Risk):
		if f.Risk == "" {
			return fmt.Sprintf("its risk is not given, and the one you answered was of %s risk", answered.Risk)
		}
		return fmt.Sprintf("its risk is %s, higher than the %s risk of the one you answered", f.Risk, answered.Risk)
	case f.Irreversible && !answered.Irreversible:
		if f.Undo == protocol.UndoUnsaid {
			return "it does not say whether it can be undone, and the one you answered could be"
		}
		return "it cannot be undone, and the one you answered could be"
	}
	return ""
}

func highStakesWords(f Facts) string {
	undo := "it cannot be undone"
	if f.Undo == protocol.UndoUnsaid {
		undo = "it does not say whether it can be undone"
	}
	if f.Risk == "" {
		return undo + " and its risk is not given"
	}
	return undo + " and is high risk"
}

// riskRank orders risk levels; a risk not given counts as the highest.
func riskRank(risk string) int {
	switch risk {
	case "low":
		return 1
	case "medium":
		return 2
	case "high":
		return 3
	}
	return 4
}
