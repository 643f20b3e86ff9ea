package main

import (
	"errors"
	"flag"
	"time"

	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
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
func (l *listener) auditReply(r *subscriber.SentReply, at time.Time) {
	if l.audit == nil || r == nil {
		return
	}
	signed, sendErr := r.Signed, errors.Unwrap(r.Err)
	rec := auditRecord(&r.Prompt, "decision", at)
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
