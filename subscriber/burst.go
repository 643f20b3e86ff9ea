package subscriber

import (
	"slices"

	"github.com/aaep-term/aaep-term/session"
)

// This file keeps a prompt that arrives in a burst of frames from being
// offered when the same burst already settles it: deployed producers replay
// old events to a new subscriber, and a confirmation answered long ago comes
// with the event that resolved it. Such a prompt is announced as already
// settled, never as a question. A prompt still waiting at the end of the
// burst (the frames already received when it began) is announced then, in
// the same pass of the loop, so nothing is delayed. A burst split across
// passes lets the prompt be offered and then withdrawn as settled elsewhere.

// promptHold is what is held during one burst of frames: from the first
// prompt on, every update, so that what comes after a prompt is never told
// before it (the same lines, in sequence order, however the burst ends).
type promptHold struct {
	on   bool
	held []Update // in order: the first is a prompt's delivery
}

// held takes d when a prompt of the current burst is held, or d is one,
// and reports whether it did. A prompt that the burst settles becomes a
// stale prompt in its own place.
func (c *Client) held(d session.Delivery) bool {
	if !c.hold.on {
		return false
	}
	if len(c.hold.held) == 0 && !holds(d) {
		return false
	}
	if d.Prompt != nil {
		switch d.Kind {
		case session.KindPromptCancelled, session.KindPromptResolved, session.KindPromptExpired:
			// Settled before it could be offered: told as such, in its
			// place; the question itself is never asked.
			i := slices.IndexFunc(c.hold.held, func(u Update) bool {
				return u.Kind == KindDelivery && u.Delivery.Prompt == d.Prompt && u.Delivery.Kind == session.KindEvent
			})
			if i >= 0 {
				c.hold.held[i].Delivery = session.Delivery{Kind: session.KindPromptStale, At: d.At, Event: d.Event, Prompt: d.Prompt}
				return true
			}
		}
	}
	c.hold.held = append(c.hold.held, Update{Kind: KindDelivery, At: d.At, Delivery: d})
	return true
}

// holds reports whether d begins a hold: a prompt offered, or one not
// offered (which keeps its place among those held).
func holds(d session.Delivery) bool {
	return d.Prompt != nil && (d.Kind == session.KindEvent && d.Prompt.State == session.PromptPending || d.Kind == session.KindPromptNotOffered)
}

// heldDiagnostic takes diagnostic u while updates are held, so it keeps
// its place among them, and reports whether it did.
func (c *Client) heldDiagnostic(u Update) bool {
	if !c.hold.on || len(c.hold.held) == 0 {
		return false
	}
	c.hold.held = append(c.hold.held, u)
	return true
}

// releasePrompts ends the burst: what was held is told in order, and the
// prompts a policy answers are answered.
func (c *Client) releasePrompts() {
	held := c.hold.held
	c.hold = promptHold{held: held[:0]}
	for _, u := range held {
		if u.Kind == KindDelivery {
			c.deliver(u.Delivery)
		} else {
			c.emit(u)
		}
	}
	clear(held)
	if len(held) > 0 {
		c.answerByGate(c.now())
	}
}
