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

// promptHold is the prompts held during one burst of frames.
type promptHold struct {
	on   bool
	held []session.Delivery // the prompts, and what concerns them, in order
}

// held takes d when it concerns a prompt of the current burst, and reports
// whether it did. A prompt that the burst settles becomes a stale prompt.
func (c *Client) held(d session.Delivery) bool {
	if !c.hold.on || d.Prompt == nil {
		return false
	}
	if d.Kind == session.KindEvent && d.Prompt.State == session.PromptPending || d.Kind == session.KindPromptNotOffered {
		// A prompt not offered keeps its place among those held: it is
		// announced after the prompts that came before it.
		c.hold.held = append(c.hold.held, d)
		return true
	}
	i := slices.IndexFunc(c.hold.held, func(h session.Delivery) bool { return h.Prompt == d.Prompt })
	if i < 0 {
		return false
	}
	switch d.Kind {
	case session.KindPromptCancelled, session.KindPromptResolved, session.KindPromptExpired:
		// Settled before it could be offered: told as such, with any
		// warning about it; the question itself is never asked.
		var about []session.Delivery
		c.hold.held = slices.DeleteFunc(c.hold.held, func(h session.Delivery) bool {
			if h.Prompt != d.Prompt {
				return false
			}
			if h.Kind != session.KindEvent {
				about = append(about, h)
			}
			return true
		})
		c.deliver(session.Delivery{Kind: session.KindPromptStale, At: d.At, Event: d.Event, Prompt: d.Prompt})
		for _, h := range about {
			c.deliver(h)
		}
	default:
		c.hold.held = append(c.hold.held, d)
	}
	return true
}

// releasePrompts ends the burst: the prompts still waiting are announced,
// and those a policy answers are answered.
func (c *Client) releasePrompts() {
	held := c.hold.held
	c.hold = promptHold{held: held[:0]}
	for _, d := range held {
		c.deliver(d)
	}
	clear(held)
	if len(held) > 0 {
		c.answerByGate(c.now())
	}
}
