package session

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// This file links tool calls to the confirmations that allowed them, in
// either order, and raises safety warnings when the blocking contract (spec
// §6.1, §4.5.3) or the default decision rules (§6.4.1) are broken.

// maxConfirms bounds the confirmations remembered per session for linking.
const maxConfirms = 8

// defaultOf is the decision a confirmation takes when nobody answers.
func defaultOf(ev *protocol.Event) string {
	if ev.DefaultDecision == protocol.DecisionAccept {
		return protocol.DecisionAccept
	}
	return protocol.DecisionReject
}

// irreversible reports whether a tool call or confirmation cannot be undone,
// as the policy and the announcements read it (protocol.Event.Undo).
func irreversible(ev *protocol.Event) bool { return ev.Undo().CannotBeUndone() }

// risky reports whether ev cannot be undone and is of medium or high risk:
// such an action needs an accepted confirmation first.
func risky(ev *protocol.Event) bool {
	return irreversible(ev) && (ev.RiskLevel == "high" || ev.RiskLevel == "medium")
}

// resolvesPrompts reports whether ev says the agent stopped waiting for
// input (spec §6.7.2): its prompts were settled elsewhere. Back to thinking
// or deciding is how the spec has a producer tell a rejection by another
// subscriber, and also how it withdraws a prompt (§6.8); the two cannot be
// told apart, so neither is called a withdrawal by the agent.
func resolvesPrompts(ev *protocol.Event) bool {
	return ev.Type == protocol.TypeStateChanged && ev.FromState == "awaiting_input" &&
		ev.ToState != "awaiting_input"
}

// resolvePrompts withdraws the pending prompts of ev's session that ev
// settles, announcing each with what the agent did.
func (e *Engine) resolvePrompts(ev *protocol.Event, now time.Time) {
	how := "was settled elsewhere and"
	if ev.ToState == "thinking" || ev.ToState == "deciding" { // §6.8's withdrawal too
		how = "was settled elsewhere, answered on another screen or withdrawn, and"
	}
	e.withdraw(ev, PromptResolved, func(p *Prompt) Delivery {
		note := fmt.Sprintf("Prompt %d %s can no longer be answered; the agent is now %s.",
			p.Number, how, words(ev.ToState))
		if e.answerless != nil && e.answerless(p) {
			note = fmt.Sprintf("Prompt %d took %s: nobody here can answer any more and the producer was told so, so it applied the default. The agent is now %s.",
				p.Number, defaultTaken(p), words(ev.ToState))
		}
		if s := ev.SummaryNormal.String(); s != "" {
			note += " " + s
		}
		return Delivery{Kind: KindPromptResolved, At: now, Event: p.Event, Prompt: p, Note: note}
	})
}

// SettledElsewhere records that the producer refused reply r because its
// prompt was settled already: another subscriber answered first (spec
// §6.7.1). The prompt leaves the pending list and the user is told; the
// default decision does not apply. It reports false when r's prompt was no
// longer pending.
func (e *Engine) SettledElsewhere(r Reply, now time.Time) bool {
	i := slices.IndexFunc(e.pending, func(pp *pendingPrompt) bool { return pp.p == r.Prompt })
	if r.Prompt == nil || i < 0 {
		return false
	}
	p := r.Prompt
	e.removePending(i)
	p.State = PromptResolved
	e.settle(p)
	e.schedulePrompts()
	e.out.Deliver(Delivery{Kind: KindPromptResolved, At: now, Event: p.Event, Prompt: p, Note: fmt.Sprintf(
		"Prompt %d was already settled elsewhere, probably answered on another screen; the agent did not take your answer.", p.Number)})
	return true
}

// link relates d, about to be delivered for session s, to the tool calls and
// confirmations before it: it may set d.Note, and returns the safety
// warnings to deliver after d.
func (e *Engine) link(s *sessionState, d *Delivery, now time.Time) []Delivery {
	ev := d.Event
	var warn []Delivery
	warning := func(about *protocol.Event, p *Prompt, format string, args ...any) {
		warn = append(warn, Delivery{Kind: KindSafetyWarning, At: now, Event: about, Prompt: p, Note: fmt.Sprintf(format, args...)})
	}
	if d.Prompt != nil && d.Prompt.Tool == "" {
		d.Prompt.Tool = ev.Tool
	}
	if u := s.unconfirmed; u != nil {
		s.unconfirmed = nil
		if ev.Type == protocol.TypeAwaitingConfirmation && d.Kind == KindEvent && protocol.Covers(ev, u) {
			// The deployed order: the tool call first, its confirmation next.
			if d.Prompt.Tool == "" {
				d.Prompt.Tool = u.Tool
			}
			d.Prompt.linked = true
			if irreversible(u) || u.RiskLevel == "high" || u.RiskLevel == "medium" {
				d.Note = fmt.Sprintf("It is about the tool %s announced just before; the agent must not go on until you answer.", words(u.Tool))
			}
		}
	}
	switch ev.Type {
	case protocol.TypeAwaitingConfirmation:
		if d.Prompt != nil {
			s.remember(d.Prompt)
		}
		if risky(ev) && ev.DefaultDecision != protocol.DecisionReject && (d.Prompt == nil || d.Prompt.State != PromptPending) {
			warning(ev, d.Prompt, "A confirmation that cannot be answered here breaks the AAEP rules: it cannot be undone, its risk is %s, and yet the agent will %s it if nobody answers.",
				words(ev.RiskLevel), defaultOf(ev))
		} else if risky(ev) && ev.DefaultDecision != protocol.DecisionReject {
			warning(ev, d.Prompt, "Prompt %d breaks the AAEP rules: it cannot be undone, its risk is %s, and yet the agent will %s it if you do not answer. Answer it yourself.",
				number(d.Prompt), words(ev.RiskLevel), defaultOf(ev))
		} else if ev.DefaultDecision == protocol.DecisionAccept && (irreversible(ev) || ev.RiskLevel == "high") {
			e.diagnose(now, "default-decision", s.id, ev.EventID, fmt.Sprintf(
				"Session %s: a confirmation of %s risk that %s defaults to accept; the AAEP rules say it should default to reject.",
				clean(s.id), words(orLow(ev.RiskLevel)), map[bool]string{true: "cannot be undone", false: "can be undone"}[irreversible(ev)]))
		}
	case protocol.TypeToolInvoked:
		e.linkTool(s, d, warning)
	}
	return warn
}

// linkTool finds the confirmation tool call d follows, says so in d.Note,
// and warns when the call runs against the user's decision or without one.
func (e *Engine) linkTool(s *sessionState, d *Delivery, warning func(*protocol.Event, *Prompt, string, ...any)) {
	ev := d.Event
	p, named := s.confirmFor(ev)
	if p == nil {
		s.unconfirmed = ev // its confirmation may come next, as deployed producers do
		return
	}
	tool := words(ev.Tool) // not before: most tool calls follow no confirmation
	if irreversible(ev) || irreversible(p.Event) {
		p.linked = true // the action it allowed; a harmless call uses none up
	}
	n := p.Number
	switch {
	case p.State == PromptPending:
		if named || risky(ev) {
			warning(ev, p, "Tool %s was started while prompt %d is still waiting for your answer.", tool, n)
		} else {
			d.Note = fmt.Sprintf("Prompt %d is still waiting for your answer.", n)
		}
	case p.State == PromptResolved:
		d.Note = fmt.Sprintf("Started after prompt %d was settled elsewhere.", n)
	case p.State == PromptStale:
		d.Note = "Started after a confirmation that was settled before you could answer it."
	case p.State == PromptNotOffered:
		// Never answerable here: not "waiting for your answer", nor rejected.
		if named || risky(ev) {
			warning(ev, p, "Tool %s was started while its confirmation was still waiting; that confirmation could not be answered here, and nothing was sent for it.", tool)
		} else {
			d.Note = "Its confirmation could not be answered here; nothing was sent for it."
		}
	case p.Decision == protocol.DecisionAccept:
		d.Note = fmt.Sprintf("Started after %s prompt %d.", acceptedBy(p), n)
	case named || risky(ev):
		what := "rejected"
		switch p.State {
		case PromptCancelled:
			what = "withdrawn"
		}
		warning(ev, p, "Tool %s was started although prompt %d was %s.", tool, n, what)
	}
}

// unconfirmedIrreversible tells, right after tool call ev is delivered and
// by the rule the capture checker applies too, that ev cannot be undone and
// no confirmation came before it: a critical warning when its risk is medium
// or high, else a diagnostic. It is told at once, not when a later event
// shows that none followed: the agent may be at it while the stream is
// silent. If the confirmation comes next (the order deployed producers use),
// it is linked to ev all the same.
func (e *Engine) unconfirmedIrreversible(s *sessionState, ev *protocol.Event, now time.Time) {
	if ev.Type != protocol.TypeToolInvoked || s.unconfirmed != ev ||
		!protocol.UnconfirmedIrreversible(irreversible(ev), false, !s.joined && !s.forgotten) {
		return
	}
	if risky(ev) {
		e.out.Deliver(Delivery{Kind: KindSafetyWarning, At: now, Event: ev, Rule: protocol.RuleUnconfirmedIrreversible,
			Note: fmt.Sprintf("Tool %s was started without your confirmation, and it cannot be undone.", words(ev.Tool))})
		return
	}
	e.diagnose(now, protocol.RuleUnconfirmedIrreversible, s.id, ev.EventID, fmt.Sprintf(
		"Session %s: tool %s cannot be undone but no confirmation was asked for it.", clean(s.id), words(ev.Tool)))
}

// acceptedBy says who accepted prompt p.
func acceptedBy(p *Prompt) string {
	switch {
	case p.DecidedBy == "default":
		return "the default decision accepted"
	case strings.HasPrefix(p.DecidedBy, "auto:"):
		return "your policy accepted"
	case p.DecidedBy == DecidedByRecording:
		return "the recorded subscriber accepted"
	}
	return "you accepted"
}

// DecidedByRecording is the DecidedBy of a prompt a recorded subscriber
// answered, in a capture played back.
const DecidedByRecording = "recording"

// remember keeps confirmation p for linking with the tool calls that follow.
func (s *sessionState) remember(p *Prompt) {
	if len(s.confirms) == maxConfirms {
		copy(s.confirms, s.confirms[1:])
		s.confirms = s.confirms[:maxConfirms-1]
	}
	s.confirms = append(s.confirms, p)
}

// confirmFor finds the confirmation of this session that tool call ev
// carries out: one naming the same tool_call_id, correlation_id or tool
// (named reports that), else the latest one not yet linked that names none
// (the rule protocol.Covers states).
func (s *sessionState) confirmFor(ev *protocol.Event) (p *Prompt, named bool) {
	for i := len(s.confirms) - 1; i >= 0; i-- {
		if c := s.confirms[i]; !c.linked && protocol.SameAction(ev, c.Event) {
			return c, true
		}
	}
	for i := len(s.confirms) - 1; i >= 0; i-- {
		if c := s.confirms[i]; !c.linked && !protocol.NamesAction(c.Event) {
			return c, false
		}
	}
	return nil, false
}

func number(p *Prompt) int {
	if p == nil {
		return 0
	}
	return p.Number
}

func orLow(risk string) string {
	if risk == "" {
		return "low"
	}
	return risk
}

// words turns an identifier such as "delete_files" into "delete files".
func words(id string) string {
	return clean(strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return ' '
		}
		return r
	}, id))
}

// defaultTaken says which default prompt p took when nobody could answer.
func defaultTaken(p *Prompt) string {
	if p.Event == nil || p.Event.Type != protocol.TypeAwaitingConfirmation {
		return "its default answer"
	}
	if p.Event.DefaultDecision == protocol.DecisionAccept {
		return "its default decision, to accept"
	}
	return "its default decision, to reject"
}
