package subscriber

// answer.go: the one place an answer is bound to what it answers. Every
// answer — Confirm, Answer, a Group's, a typed line's, a key's — is an
// Answer, checked by Answer.check on the client's own goroutine against the
// prompt as it stands, before anything is built or sent.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/session"
)

// Settle is how long a prompt must have been shown, and the prompts waiting
// have stayed as they are, before an answer that names no prompt number (a
// bare "accept", a key on the prompt on screen) applies to it: a prompt
// swapped for another just before the key press is said again, not
// answered.
const Settle = 3 * time.Second

// Reasons of a *PromptError refusing an answer bound to something else
// than the prompt it would reach; nothing is sent.
var (
	// ErrWrongKind: an accept or reject would reach a question, or a text
	// answer a confirmation.
	ErrWrongKind = errors.New("subscriber: the answer fits another kind of prompt")
	// ErrNotShown: the prompt under that number is not the one shown
	// (another producer's, or other words).
	ErrNotShown = errors.New("subscriber: the prompt is not the one shown")
	// ErrTooSoon: an answer naming no number came before the person had
	// time to hear the prompt it would reach.
	ErrTooSoon = errors.New("subscriber: the prompt changed moments ago")
)

// Shown is a prompt as the person answering was shown it.
type Shown struct {
	Number int    // the prompt's number
	Kind   string // session.AsksConfirmation or session.AsksQuestion
	// Agent is the agent_id of the producer that asked; "" when not known.
	Agent string
	// Words is session.Prompt.Digest of the prompt shown; "" when not known.
	Words string
	// At is when the prompt was first shown; zero when not known (the
	// client, and a Group, know when they handed it out).
	At time.Time
}

// ShownOf is p as shown at time at: its number, kind, producer and words.
func ShownOf(p *session.Prompt, at time.Time) Shown {
	return Shown{Number: p.Number, Kind: p.Kind(), Agent: p.Event.Producer.AgentID, Words: p.Digest(), At: at}
}

// Answer is a person's answer bound to what it answers.
type Answer struct {
	To Shown
	// Bare marks an answer that named no prompt number: a bare "accept" or
	// "yes", a key on the prompt shown. It applies only to a prompt shown
	// Settle ago or more, while the prompts waiting stayed as they are.
	Bare bool

	Decision  string // a confirmation's: accept or reject
	Rationale string // a confirmation's reason, sent as decision_rationale
	Always    bool   // keep a confirmation's decision for its tool (Always)
	Text      string // a question's answer

	changed time.Time     // when the prompts waiting last changed (Group); zero when not known
	settle  time.Duration // Settle when 0; none when negative (GroupConfig.Settle)
}

// Reply sends a, once it is bound to the prompt it would reach: the same
// number, kind, producer and words as shown and, for a bare answer, shown
// long enough ago (Settle). Otherwise it returns a *PromptError whose
// reason is ErrWrongKind, ErrNotShown or ErrTooSoon, and nothing is sent;
// its other errors are Confirm's.
func (c *Client) Reply(ctx context.Context, a Answer) error {
	return c.reply(ctx, a.To.Number, func(p *session.Prompt, now time.Time) (session.Reply, error) {
		c.mu.Lock()
		a.To.At = later(a.To.At, c.shown[p.Number])
		c.mu.Unlock()
		if err := a.check(p, now); err != nil {
			return session.Reply{}, err
		}
		if a.To.Kind == session.AsksQuestion {
			return c.eng.Clarify(p.Number, a.Text, now)
		}
		if a.Always {
			c.rememberAlways(p, a.Decision)
		}
		return c.eng.ConfirmBecause(p.Number, a.Decision, c.cfg.DecidedBy, a.Rationale, now)
	})
}

// check says why a may not answer p at time now; nil when it may.
func (a Answer) check(p *session.Prompt, now time.Time) error {
	n := p.Number
	refuse := func(reason error, format string, args ...any) error {
		return &PromptError{Prompt: n, Reason: reason, Words: fmt.Sprintf(format, args...)}
	}
	switch {
	case a.To.Kind != p.Kind():
		return refuse(ErrWrongKind, "Prompt %d is a %s, and your answer is for a %s; nothing was sent.", n, p.Kind(), a.To.Kind)
	case a.To.Agent != "" && a.To.Agent != p.Event.Producer.AgentID:
		return refuse(ErrNotShown, "Prompt %d is not from the agent you were shown; nothing was sent.", n)
	case a.To.Words != "" && a.To.Words != p.Digest():
		return refuse(ErrNotShown, "Prompt %d is not the prompt you were shown; nothing was sent.", n)
	case !a.Bare:
		return nil
	}
	settle := a.settle
	switch {
	case settle == 0:
		settle = Settle
	case settle < 0:
		settle = 0
	}
	switch {
	case a.To.At.IsZero() || now.Sub(a.To.At) < settle:
		return refuse(ErrTooSoon, "Prompt %d was asked moments ago; nothing was sent. Hear it, then answer it.", n)
	case !a.changed.IsZero() && now.Sub(a.changed) < settle:
		return refuse(ErrTooSoon, "The prompts waiting changed moments ago; nothing was sent to prompt %d. Hear them, then answer.", n)
	}
	return nil
}

// later is the later of two times, the zero time being earliest.
func later(x, y time.Time) time.Time {
	if y.After(x) {
		return y
	}
	return x
}

// maxShownSettled bounds the settled prompts a client remembers having
// handed out, so that an answer to one is refused as settled rather than
// unknown (the engine remembers as many); those still waiting are all kept.
const maxShownSettled = 64
