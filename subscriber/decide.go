package subscriber

// decide.go: prompts decided without the user, all through one
// policy.Gate: "always" answers, a policy file's rules, automatic rejection.

import (
	"context"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// gate is the one gate every decision made without the user goes through.
func (c *Client) gate() *policy.Gate {
	if c.cfg.Gate == nil {
		c.cfg.Gate = policy.NewGate(nil, false) // "always" answers only
	}
	return c.cfg.Gate
}

// queueForGate keeps each newly offered confirmation, to be decided once
// the engine has returned.
func (c *Client) queueForGate(d *session.Delivery) {
	if d.Kind == session.KindEvent && d.Prompt != nil && d.Prompt.State == session.PromptPending &&
		d.Event.Type == protocol.TypeAwaitingConfirmation {
		c.auto = append(c.auto, d.Prompt)
	}
}

// answerByGate answers the queued confirmations the gate decides; the rest
// wait for the user.
func (c *Client) answerByGate(now time.Time) {
	for len(c.auto) > 0 {
		p := c.auto[0]
		c.auto = c.auto[1:]
		if p.State != session.PromptPending {
			continue
		}
		facts := policy.FactsOf(p.Event, p.Tool)
		verdict, by, why := c.decide(p, facts)
		if verdict == "" {
			continue
		}
		if verdict == policy.Accept && facts.HighStakes() {
			// Announced every time, on every output, as a warning.
			c.deliver(&session.Delivery{Kind: session.KindSafetyWarning, At: now, Event: p.Event, Prompt: p,
				Note: fmt.Sprintf("%s accepts prompt %d without asking you, although it cannot be undone and its risk is %s: %s",
					why, p.Number, orUnknown(facts.Risk), p.Event.Action.String())})
		} else {
			c.say(StatusDecision, fmt.Sprintf("%s %ss prompt %d.", why, verdict, p.Number))
		}
		r, err := c.eng.ConfirmBy(p.Number, verdict, by, now)
		if err != nil {
			c.say(StatusDecision, err.Error())
			continue
		}
		_ = c.sendReply(context.Background(), r, now) // the Reply update tells a failure
	}
}

// decide asks the gate who answers p without the user, if anyone: the
// verdict, the reply's decided_by, and the words naming the decider.
func (c *Client) decide(p *session.Prompt, f policy.Facts) (verdict, decidedBy, why string) {
	out := c.gate().Decide(f)
	if out.AskAgain != "" {
		then := "; asking you again."
		if out.By != policy.ByNobody {
			then = "." // the line of what decided it follows
		}
		c.say(StatusDecision, fmt.Sprintf("Your always answer for %s does not apply to prompt %d: %s%s",
			protocol.Name(p.Tool), p.Number, out.AskAgain, then))
	}
	switch out.By {
	case policy.ByAlways:
		return out.Verdict, "auto:always", fmt.Sprintf("Your always answer for %s in this session", protocol.Name(p.Tool))
	case policy.ByPolicy:
		return out.Verdict, "auto:policy:" + out.Rule, fmt.Sprintf("Your policy rule %s", out.Rule)
	case policy.ByAutoReply:
		by := c.cfg.AutoReplyBy
		if by == "" {
			by = c.cfg.DecidedBy
		}
		return out.Verdict, by, c.cfg.Hints.word(HintAutoReply, "Your auto-reply policy")
	}
	return "", "", ""
}

// rememberAlways keeps an "accept always" or "reject always" answer for the
// tool p is about, in p's session of p's agent, and says so, or why not.
func (c *Client) rememberAlways(p *session.Prompt, decision string) bool {
	if err := c.gate().Remember(policy.FactsOf(p.Event, p.Tool), decision); err != nil {
		c.say(StatusDecision, fmt.Sprintf("Prompt %d: %s; answering it once.", p.Number, err))
		return false
	}
	unless := "."
	if decision == protocol.DecisionAccept {
		unless = fmt.Sprintf("; you are asked again about one riskier than prompt %d.", p.Number)
	}
	c.say(StatusDecision, fmt.Sprintf("From now on in this session, confirmations about %s from this agent are %sed without asking%s",
		protocol.Name(p.Tool), decision, unless))
	return true
}

func orUnknown(risk string) string {
	if risk == "" {
		return "not given"
	}
	return protocol.Line(risk)
}
