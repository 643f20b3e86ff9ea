package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// This file wires who decides a prompt without asking — the --policy file,
// "always" answers, --auto-reply reject — and the --audit log.

// decideOptions are --policy and --audit.
type decideOptions struct {
	PolicyFile string
	AuditFile  string

	policy *policy.Policy // loaded from PolicyFile; nil without one
}

func addDecideFlags(fs *flag.FlagSet, o *decideOptions) {
	fs.StringVar(&o.PolicyFile, "policy", "", "decide confirmations by the rules in this JSON `FILE` (see docs/policy.md)")
	fs.StringVar(&o.AuditFile, "audit", "", "append every prompt and decision to this JSON Lines `FILE` (see docs/policy.md)")
}

// load reads the policy file, refusing one that is unsafe or unclear.
func (o *decideOptions) load() error {
	if o.PolicyFile == "" {
		return nil
	}
	p, err := policy.Load(o.PolicyFile)
	if err != nil {
		return err
	}
	o.policy = p
	return nil
}

// queueForPolicy keeps each newly offered confirmation, to be decided once
// the engine has returned.
func (l *listener) queueForPolicy(d session.Delivery) {
	if d.Kind == session.KindEvent && d.Prompt != nil && d.Prompt.State == session.PromptPending &&
		d.Event.Type == protocol.TypeAwaitingConfirmation {
		l.autoQueue = append(l.autoQueue, d.Prompt)
	}
}

// answerByPolicy answers the queued confirmations that an "always" answer,
// the policy file or --auto-reply reject decides; the rest wait for the user.
func (l *listener) answerByPolicy(now time.Time) {
	for len(l.autoQueue) > 0 {
		p := l.autoQueue[0]
		l.autoQueue = l.autoQueue[1:]
		if p.State != session.PromptPending {
			continue
		}
		facts := policy.FactsOf(p.Event, p.Tool)
		verdict, by, why := l.decide(p, facts)
		if verdict == "" {
			continue
		}
		if verdict == policy.Accept && facts.HighStakes() {
			// Announced every time, on every output, as a warning.
			l.ann.Deliver(session.Delivery{Kind: session.KindSafetyWarning, At: now, Event: p.Event, Prompt: p,
				Note: fmt.Sprintf("%s accepts prompt %d without asking you, although it cannot be undone and its risk is %s: %s",
					why, p.Number, orUnknown(facts.Risk), topic(p))})
		} else {
			l.say(fmt.Sprintf("%s %ss prompt %d.", why, verdict, p.Number))
		}
		l.confirmBy(context.Background(), p.Number, verdict, by, now)
	}
}

// gate is the one gate every decision made without the user goes through
// (policy.Gate): "always" answers, the policy file and --auto-reply reject.
func (l *listener) gate() *policy.Gate {
	if l.gates == nil {
		l.gates = policy.NewGate(l.o.Decide.policy, l.o.AutoReply == protocol.DecisionReject)
	}
	return l.gates
}

// decide asks the gate who answers p, of facts f, without the user, if
// anyone: the verdict, the reply's decided_by, and the words naming the
// decider. When a remembered "accept always" does not apply, it says why.
func (l *listener) decide(p *session.Prompt, f policy.Facts) (verdict, decidedBy, why string) {
	out := l.gate().Decide(f)
	if out.AskAgain != "" {
		then := "; asking you again."
		if out.By != policy.ByNobody {
			then = "." // the line of what decided it follows
		}
		l.say(fmt.Sprintf("Your always answer for %s does not apply to prompt %d: %s%s",
			protocol.Sanitize(p.Tool), p.Number, out.AskAgain, then))
	}
	switch out.By {
	case policy.ByAlways:
		return out.Verdict, "auto:always", fmt.Sprintf("Your always answer for %s in this session", protocol.Sanitize(p.Tool))
	case policy.ByPolicy:
		return out.Verdict, "auto:policy:" + out.Rule, fmt.Sprintf("Your policy rule %s", out.Rule)
	case policy.ByAutoReply:
		return out.Verdict, l.o.DecidedBy, "Your --auto-reply policy"
	}
	return "", "", ""
}

// rememberAlways keeps an "accept always" or "reject always" answer for the
// tool prompt p is about, in p's session of p's agent. It says why when it
// cannot.
func (l *listener) rememberAlways(p *session.Prompt, decision string) bool {
	if err := l.gate().Remember(policy.FactsOf(p.Event, p.Tool), decision); err != nil {
		l.say(fmt.Sprintf("Prompt %d: %s; answering it once.", p.Number, err))
		return false
	}
	unless := "."
	if decision == protocol.DecisionAccept {
		unless = fmt.Sprintf("; you are asked again about one riskier than prompt %d.", p.Number)
	}
	l.say(fmt.Sprintf("From now on in this session, confirmations about %s from this agent are %sed without asking%s",
		protocol.Sanitize(p.Tool), decision, unless))
	return true
}

func orUnknown(risk string) string {
	if risk == "" {
		return "not given"
	}
	return protocol.Sanitize(risk)
}

// auditDelivery logs what happened to a prompt, as the engine reports it.
func (l *listener) auditDelivery(d session.Delivery) {
	if l.audit == nil || d.Prompt == nil {
		return
	}
	what := map[session.DeliveryKind]string{
		session.KindEvent: "prompt", session.KindPromptStale: "stale", session.KindPromptExpired: "expired",
		session.KindPromptCancelled: "cancelled", session.KindPromptResolved: "resolved",
		session.KindPromptNotOffered: "not-offered", session.KindPromptLeft: "left-unanswered",
	}[d.Kind]
	if what == "" {
		return // reminders, warnings; replies are logged by auditReply
	}
	r := auditRecord(d.Prompt, what, d.At)
	if what == "expired" && d.Prompt.Decision != "" {
		r.Decision, r.DecidedBy = d.Prompt.Decision, "default"
	}
	l.writeAudit(r)
}

// auditReply logs a reply sent, or that could not be sent.
func (l *listener) auditReply(r session.Reply, signed bool, sendErr error, at time.Time) {
	if l.audit == nil {
		return
	}
	rec := auditRecord(r.Prompt, "decision", at)
	rec.Decision = r.Decision
	if rec.Decision == "" {
		rec.Decision = "answer" // a clarification: the answer itself is not logged
	}
	rec.DecidedBy = r.DecidedBy
	if rec.DecidedBy == "" {
		rec.DecidedBy = "user"
	}
	delivered := sendErr == nil
	rec.Signed, rec.Delivered = &signed, &delivered
	if sendErr != nil {
		rec.Error = protocol.Sanitize(sendErr.Error())
	}
	l.writeAudit(rec)
}

func auditRecord(p *session.Prompt, what string, at time.Time) audit.Record {
	ev := p.Event
	r := audit.Record{Time: audit.Stamp(at), What: what, Prompt: p.Number, AgentID: protocol.Sanitize(ev.Producer.AgentID),
		SessionID: protocol.Sanitize(ev.SessionID), EventID: protocol.Sanitize(ev.EventID),
		TokenSHA256: audit.HashToken(ev.ReplyToken), Tool: protocol.Sanitize(p.Tool), Action: topic(p)}
	r.Type = promptKind(p)
	if ev.Type == protocol.TypeAwaitingConfirmation {
		r.Risk, r.Default = protocol.Sanitize(ev.RiskLevel), protocol.Sanitize(ev.DefaultDecision)
		if irr, said := ev.Undo().Said(); said {
			r.Irreversible = &irr // as announced: a contradiction is irreversible
		}
	}
	return r
}

func (l *listener) writeAudit(r audit.Record) {
	if err := l.audit.Write(r); err != nil {
		l.sinkFailed(err)
	}
}

// signed reports whether a reply went with a signature: in a header on
// HTTP, or wrapped on a framed transport.
func (o *options) signed(wrapped bool) bool {
	return !o.Sign.Off && o.Sign.key != nil && (o.Sign.inHeader || wrapped)
}
