package subscriber

// reply.go: answering prompts: Confirm, Answer, and sending a reply.

import (
	"context"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/session"
)

// ConfirmOption changes how Confirm answers.
type ConfirmOption func(*confirmOptions)

type confirmOptions struct {
	rationale string
	always    bool
}

// Because sends the user's reason with the decision (decision_rationale).
func Because(rationale string) ConfirmOption {
	return func(o *confirmOptions) { o.rationale = rationale }
}

// Always keeps the decision, through the gate, for every later
// confirmation about the same tool in the prompt's session of its agent;
// the gate asks again about a riskier one. A status update says whether it
// was kept.
func Always() ConfirmOption {
	return func(o *confirmOptions) { o.always = true }
}

// Confirm answers confirmation prompt with decision (accept or reject) as
// the user, and sends the reply. It returns a *PromptError when the prompt
// cannot be answered (unknown, not yet offered in an update taken from
// Next, settled), a *SendError when the reply could not be delivered (the
// prompt still waits; the Reply update says so too), ErrClosed once the
// client has ended.
func (c *Client) Confirm(ctx context.Context, prompt int, decision string, opts ...ConfirmOption) error {
	var o confirmOptions
	for _, f := range opts {
		f(&o)
	}
	return c.Reply(ctx, Answer{To: Shown{Number: prompt, Kind: session.AsksConfirmation},
		Decision: decision, Rationale: o.rationale, Always: o.always})
}

// Answer answers clarification prompt with text (a choice number, a
// choice, yes or no, a number, or free text), as Confirm does. An answer
// the question does not take is refused with a *PromptError that says what
// it takes; nothing is sent.
func (c *Client) Answer(ctx context.Context, prompt int, text string) error {
	return c.Reply(ctx, Answer{To: Shown{Number: prompt, Kind: session.AsksQuestion}, Text: text})
}

// reply answers prompt with what build makes of it, on the owner goroutine,
// once the prompt may be answered; a reply the engine refuses (a decision
// or an answer the prompt does not take) is a *PromptError, and nothing is
// sent.
func (c *Client) reply(ctx context.Context, prompt int, build func(p *session.Prompt, now time.Time) (session.Reply, error)) error {
	var err error
	if derr := c.do(ctx, func() {
		now := c.now()
		var p *session.Prompt
		if p, err = c.answerable(prompt, now); err != nil {
			return
		}
		var r session.Reply
		if r, err = build(p, now); err != nil {
			err = &PromptError{Prompt: prompt, Reason: err, Words: err.Error()}
			return
		}
		err = c.sendReply(ctx, r, now)
	}); derr != nil {
		return derr
	}
	return err
}

// WhyNot returns nil when prompt may be answered now, else a *PromptError
// saying why not.
func (c *Client) WhyNot(ctx context.Context, prompt int) error {
	var err error
	if derr := c.do(ctx, func() { _, err = c.answerable(prompt, c.now()) }); derr != nil {
		return derr
	}
	return err
}

// answerable finds prompt among those pending and offered to the reader.
func (c *Client) answerable(n int, now time.Time) (*session.Prompt, error) {
	c.mu.Lock()
	_, shown := c.shown[n]
	c.mu.Unlock()
	if shown {
		for _, p := range c.eng.Pending() {
			if p.Number == n {
				return p, nil
			}
		}
	}
	if err := c.eng.WhyNot(n, now); err != nil {
		reason := ErrUnknownPrompt
		if shown {
			reason = ErrSettled
		}
		return nil, &PromptError{Prompt: n, Reason: reason, Words: err.Error()}
	}
	return nil, &PromptError{Prompt: n, Reason: ErrUnknownPrompt, Words: fmt.Sprintf("No prompt %d is waiting for an answer.", n)}
}

// sendReply sends r, signed when it can be, and tells how it went in a
// Reply update.
func (c *Client) sendReply(ctx context.Context, r session.Reply, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	msg, wrapped, err := c.wrap(r)
	if err == nil {
		err = c.send(ctx, msg)
	}
	sr := &SentReply{Prompt: *r.Prompt, Decision: r.Decision, DecidedBy: r.DecidedBy, Body: r.Body, Signed: c.signed(wrapped)}
	if err != nil {
		sr.Err = &SendError{Prompt: r.Prompt.Number, Err: err}
	}
	if settledAlready(err) && c.eng.SettledElsewhere(r, now) {
		sr.SettledElsewhere = true // another subscriber answered first; the engine told it
		c.emit(&Update{Kind: KindReply, At: now, Reply: sr})
		return sr.Err
	}
	if err != nil {
		c.emit(&Update{Kind: KindReply, At: now, Reply: sr, Text: fmt.Sprintf(
			"Could not send your answer to prompt %d: %v. The prompt is still waiting; try again.", r.Prompt.Number, err)})
		return sr.Err
	}
	c.eng.Sent(r, now)
	c.emit(&Update{Kind: KindReply, At: now, Reply: sr, Text: c.signedWords(wrapped)})
	return nil
}

// send sends msg on the connection, tapped.
func (c *Client) send(ctx context.Context, msg []byte) error {
	if c.conn == nil {
		return ErrClosed
	}
	if c.cfg.Tap != nil {
		c.cfg.Tap(Sent, msg, c.now())
	}
	return c.conn.Send(ctx, msg)
}
