package subscriber

// audit.go: what an update adds to an audit log (audit.Record): every
// prompt and what became of it, and every decision, whoever made it.

import (
	"cmp"
	"errors"
	"time"

	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// auditWhat is the audit log's word for each delivery about a prompt;
// reminders and warnings are not logged, and replies are logged from the
// Reply update.
var auditWhat = map[session.DeliveryKind]string{
	session.KindEvent: "prompt", session.KindPromptStale: "stale", session.KindPromptExpired: "expired",
	session.KindPromptCancelled: "cancelled", session.KindPromptResolved: "resolved",
	session.KindPromptNotOffered: "not-offered", session.KindPromptLeft: "left-unanswered",
}

// expiredWhat is the audit log's word for a prompt that stopped waiting
// for cause, and whether the producer was told, so that its default
// decision applies: only a prompt whose time ran out is "expired".
func expiredWhat(cause session.Cause) (what string, told bool) {
	switch cause {
	case session.CauseQuit:
		return "quit", true
	case session.CauseQuitUntold:
		return "quit-untold", false
	case session.CauseGone:
		return "agent-gone", false
	case session.CauseEnded:
		return "subscription-ended", true
	}
	return "expired", true
}

// AuditRecord is the record u adds to an audit log: a prompt offered or
// what became of it, or a reply sent (or that could not be sent), with who
// decided. ok is false when u is nothing an audit log keeps. The producer's
// strings are sanitized; a clarification's answer itself is not logged.
func (u Update) AuditRecord() (r audit.Record, ok bool) { return u.AuditRecordOf("") }

// AuditRecordOf is AuditRecord for a program watching several agents: the
// record names the agent u came from by agent, the label the program's
// lines name it by (sanitized to one line; "" leaves it out, as with one
// agent).
func (u Update) AuditRecordOf(agent string) (r audit.Record, ok bool) {
	if r, ok = u.auditRecord(); ok {
		r.Agent = protocol.Line(agent)
	}
	return r, ok
}

// auditRecord is the record u adds to an audit log, naming no agent.
func (u Update) auditRecord() (r audit.Record, ok bool) {
	switch {
	case u.Kind == KindDelivery && u.Delivery.Prompt != nil:
		d := u.Delivery
		what := auditWhat[d.Kind]
		if what == "" {
			return r, false
		}
		told := true // the producer knows nobody here will answer
		if d.Kind == session.KindPromptExpired {
			what, told = expiredWhat(d.Cause)
		}
		r = promptRecord(d.Prompt, what, d.At)
		if d.Kind == session.KindPromptExpired && told && d.Prompt.Decision != "" {
			r.Decision, r.DecidedBy = d.Prompt.Decision, "default"
		}
		return r, true
	case u.Kind == KindReply && u.Reply != nil:
		return u.Reply.auditRecord(u.At), true
	}
	return r, false
}

// auditRecord is the "decision" record of a reply sent at at.
func (sr *SentReply) auditRecord(at time.Time) audit.Record {
	signed, sendErr := sr.Signed, errors.Unwrap(sr.Err)
	r := promptRecord(&sr.Prompt, "decision", at)
	r.Decision = cmp.Or(sr.Decision, "answer") // a clarification: the answer itself is not logged
	r.DecidedBy = cmp.Or(sr.DecidedBy, "user")
	delivered := sendErr == nil
	r.Signed, r.Delivered = &signed, &delivered
	if sendErr != nil {
		r.Error = protocol.Sanitize(sendErr.Error())
	}
	return r
}

// promptRecord is the audit record of prompt p: what is "prompt",
// "decision", "expired", … as the audit log names them.
func promptRecord(p *session.Prompt, what string, at time.Time) audit.Record {
	ev := p.Event
	r := audit.Record{Time: audit.Stamp(at), What: what, Prompt: p.Number, AgentID: protocol.Sanitize(ev.Producer.AgentID),
		SessionID: protocol.Sanitize(ev.SessionID), EventID: protocol.Sanitize(ev.EventID),
		TokenSHA256: audit.HashToken(ev.ReplyToken), Tool: protocol.Sanitize(p.Tool), Action: p.Asks().Line(),
		Type: p.Kind()}
	if ev.Type == protocol.TypeAwaitingConfirmation {
		r.Risk, r.Default = protocol.Sanitize(ev.RiskLevel), protocol.Sanitize(ev.DefaultDecision)
		if irr, said := ev.Undo().Said(); said {
			r.Irreversible = &irr // as announced: a contradiction is irreversible
		}
	}
	return r
}
