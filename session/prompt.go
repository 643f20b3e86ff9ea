package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// maxRecent bounds the settled prompts remembered so that an answer to one
// gets a precise reason ("expired", "withdrawn", …) instead of "no such prompt".
const maxRecent = 64

// pendingPrompt is a prompt waiting at the producer, with its reminder state.
type pendingPrompt struct {
	p         *Prompt
	start     time.Time // when it was received, by our clock
	reminders int       // reminders given: 0, 1 (half the time left) or 2 (a tenth left)
	token     uint64    // the key of its reply token, when it has one
}

// Pending returns the prompts offered for an answer, ordered by Number.
// Prompts announced as not offered are waiting too, but are left out.
func (e *Engine) Pending() []*Prompt {
	ps := make([]*Prompt, 0, len(e.pending))
	for _, pp := range e.pending {
		if pp.p.State == PromptPending {
			ps = append(ps, pp.p)
		}
	}
	return ps
}

func isPrompt(ev *protocol.Event) bool {
	return ev.Type == protocol.TypeAwaitingConfirmation || ev.Type == protocol.TypeAwaitingClarify
}

// cancelsPrompts reports whether ev withdraws its session's pending prompts
// by ending the session. The only other events that settle a prompt are
// the agent leaving awaiting_input (resolvesPrompts), its timeout and a
// reply: an agent goes on with work the prompt does not block (spec §6.1),
// so it may stream output, think and change state while a prompt waits,
// and none of that settles it.
func cancelsPrompts(ev *protocol.Event) bool {
	return ev.IsTerminal()
}

// openPrompt makes a prompt of the confirmation or clarification ev, and
// returns the kind of its delivery and the critical lines to deliver after
// it. The prompt is
//   - stale (not numbered) when it can no longer be answered: its deadline
//     passed, its session ended, or an event of its session numbered after
//     it already said the agent left awaiting_input (a later event of
//     another kind settles nothing: the prompt is told late, and offered);
//   - not offered (not numbered, not kept) when its agent, or all agents,
//     already have as many prompts waiting as the bounds allow; a pending
//     prompt with the same reply token is then not offered any more either;
//   - not offered (numbered and kept, so that answering it says why) when
//     its reply token is on another pending prompt, or on one already
//     answered: the agent could not tell which prompt an answer is for;
//   - pending otherwise.
//
// s is nil when ev has no session.
func (e *Engine) openPrompt(s *sessionState, ev *protocol.Event, now time.Time) (*Prompt, DeliveryKind, []Delivery) {
	p := &Prompt{Event: ev, Deadline: deadline(ev, now)}
	var tok uint64
	if ev.ReplyToken != "" {
		// By token alone: one back channel takes the replies of all its
		// agents, and a reply names nothing but the token.
		tok = e.hash.sum("", ev.ReplyToken)
		if e.tokens.has(tok) && e.bounds.tokens[tok] == nil && !e.answered.has(tok) {
			e.diagnose(now, "lifecycle", ev.SessionID, ev.EventID, fmt.Sprintf(
				"Session %s: a prompt reuses the reply token of an earlier prompt; the agent may ignore the answer.",
				clean(ev.SessionID)))
		}
		e.tokens.add(tok)
	}
	stale := !p.Deadline.IsZero() && !now.Before(p.Deadline)
	if s != nil {
		stale = stale || s.ended || (ev.HasSeq && ev.Seq < s.resolvedSeq)
	}
	if stale {
		p.State = PromptStale // not numbered: it is never offered for an answer
		return p, KindPromptStale, nil
	}
	var other *pendingPrompt // a pending prompt with the same reply token
	if u := e.bounds.tokens[tok]; ev.ReplyToken != "" && u != nil {
		other = u.last
	}
	if why, warn := e.admit(p, now); why != "" {
		p.State, p.why = PromptNotOffered, why
		if other != nil {
			// Not offered, but an answer to the other would reach it too.
			warn = append(warn, e.shareToken(p, other, now)...)
		}
		return p, KindPromptNotOffered, warn
	}
	p.Number = e.nextNumber()
	pp := &pendingPrompt{p: p, start: now, token: tok}
	e.pending = append(e.pending, pp)
	e.bounds.add(pp)
	if d := pp.due(); !d.IsZero() && (e.promptDue.IsZero() || d.Before(e.promptDue)) {
		e.promptDue = d
	}
	switch {
	case ev.ReplyToken == "":
	case other != nil:
		return p, KindPromptNotOffered, e.shareToken(p, other, now)
	case e.answered.has(tok):
		p.State = PromptNotOffered
		p.why = fmt.Sprintf("Prompt %d reuses the reply token of a prompt already answered; the agent would take no second answer, so none can be sent for it.", p.Number)
		return p, KindPromptNotOffered, nil
	}
	return p, KindEvent, nil
}

// deadline is when the prompt ev stops accepting answers: timeout_seconds
// after we received it, or after its timestamp when that is earlier. It is
// zero when ev gives no timeout.
func deadline(ev *protocol.Event, now time.Time) time.Time {
	if ev.TimeoutSeconds <= 0 {
		return time.Time{}
	}
	timeout := time.Duration(ev.TimeoutSeconds) * time.Second
	d := now.Add(timeout)
	if !ev.Timestamp.IsZero() {
		if t := ev.Timestamp.Add(timeout); t.Before(d) {
			d = t
		}
	}
	return d
}

// cancelPrompts withdraws the pending prompts of ev's session, announcing
// each. A prompt numbered after ev in its session is not withdrawn by it.
func (e *Engine) cancelPrompts(ev *protocol.Event, now time.Time) {
	e.withdraw(ev, PromptCancelled, func(p *Prompt) Delivery {
		return Delivery{Kind: KindPromptCancelled, At: now, Event: p.Event, Prompt: p}
	})
}

// withdraw settles in state the pending prompts of ev's session that came
// before ev, and delivers what tell makes of each.
func (e *Engine) withdraw(ev *protocol.Event, state PromptState, tell func(*Prompt) Delivery) {
	removed := false
	for i := 0; i < len(e.pending); {
		p := e.pending[i].p
		pe := p.Event
		if keyOf(pe) != keyOf(ev) || (ev.HasSeq && pe.HasSeq && pe.Seq > ev.Seq) {
			i++
			continue
		}
		e.removePending(i)
		removed = true
		p.State = state
		e.settle(p)
		e.out.Deliver(tell(p))
	}
	if removed {
		e.schedulePrompts()
	}
}

// tickPrompts expires the prompts whose deadline passed and reminds the user
// of those at half and at a tenth of their time.
func (e *Engine) tickPrompts(now time.Time) {
	if e.promptDue.IsZero() || now.Before(e.promptDue) {
		return
	}
	for i := 0; i < len(e.pending); {
		pp := e.pending[i]
		if dl := pp.p.Deadline; !dl.IsZero() && !now.Before(dl) {
			e.expirePrompt(i, now, CauseTimeout)
			continue
		}
		if n := pp.remindersDue(now); n > pp.reminders {
			pp.reminders = n
			if pp.p.State != PromptPending {
				i++
				continue // not offered: nothing to remind the user of
			}
			e.out.Deliver(Delivery{Kind: KindPromptReminder, At: now, Event: pp.p.Event, Prompt: pp.p, Reminder: n})
		}
		i++
	}
	e.schedulePrompts()
}

// expirePrompt settles pending prompt i as expired and announces it,
// saying why.
func (e *Engine) expirePrompt(i int, now time.Time, why Cause) {
	p := e.pending[i].p
	e.removePending(i)
	p.State = PromptExpired
	if p.Event.Type == protocol.TypeAwaitingConfirmation {
		p.Decision, p.DecidedBy = defaultOf(p.Event), "default"
	}
	e.settle(p)
	e.out.Deliver(Delivery{Kind: KindPromptExpired, At: now, Event: p.Event, Prompt: p, Cause: why})
}

// leavePrompt settles pending prompt i as left unanswered and announces
// it, saying why.
func (e *Engine) leavePrompt(i int, now time.Time, why Cause) {
	p := e.pending[i].p
	e.removePending(i)
	p.State = PromptLeft
	e.settle(p)
	e.out.Deliver(Delivery{Kind: KindPromptLeft, At: now, Event: p.Event, Prompt: p, Cause: why})
}

// remindersDue is how many reminders should have been given by now.
func (pp *pendingPrompt) remindersDue(now time.Time) int {
	total := pp.p.Deadline.Sub(pp.start)
	switch {
	case total <= 0:
		return 0
	case !now.Before(pp.p.Deadline.Add(-total / 10)):
		return 2
	case !now.Before(pp.start.Add(total / 2)):
		return 1
	}
	return 0
}

// due is when pp next needs attention: a reminder, or its expiry. It is
// zero when pp has no deadline.
func (pp *pendingPrompt) due() time.Time {
	dl := pp.p.Deadline
	if dl.IsZero() {
		return dl
	}
	total := dl.Sub(pp.start)
	switch {
	case total <= 0 || pp.reminders >= 2:
		return dl
	case pp.reminders == 1:
		return dl.Add(-total / 10)
	}
	return pp.start.Add(total / 2)
}

// schedulePrompts recomputes when the prompts next need attention.
func (e *Engine) schedulePrompts() {
	var next time.Time
	for _, pp := range e.pending {
		if d := pp.due(); !d.IsZero() && (next.IsZero() || d.Before(next)) {
			next = d
		}
	}
	e.promptDue = next
}

// removePending takes pending prompt i out of the list and the bounds.
func (e *Engine) removePending(i int) {
	e.unbound(e.pending[i])
	e.pending = slices.Delete(e.pending, i, i+1)
}

// pendingIndex returns the index of prompt n in the pending list, or -1.
func (e *Engine) pendingIndex(n int) int {
	i, ok := slices.BinarySearchFunc(e.pending, n, func(pp *pendingPrompt, n int) int { return pp.p.Number - n })
	if !ok {
		return -1
	}
	return i
}

// settle remembers a prompt that left the pending list.
func (e *Engine) settle(p *Prompt) {
	if len(e.recent) == maxRecent {
		copy(e.recent, e.recent[1:])
		e.recent = e.recent[:maxRecent-1]
	}
	e.recent = append(e.recent, p)
}

// prompt returns prompt n, pending or recently settled, or nil.
func (e *Engine) prompt(n int) *Prompt {
	if i := e.pendingIndex(n); i >= 0 {
		return e.pending[i].p
	}
	for _, p := range e.recent {
		if p.Number == n {
			return p
		}
	}
	return nil
}
