package subscriber

// answerless.go: telling the producer that nobody can answer here any more.

import (
	"context"
	"fmt"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// CannotAnswer tells the producer that nobody can answer its prompts here
// any more (the person's input has ended, say): the subscription
// renegotiates supports_confirmation_reply and supports_clarification_reply
// to false, so a conforming producer sends no more prompts and applies each
// waiting prompt's default decision at once (spec §5.3.1.4, §5.3.1.5).
// Nothing is answered for the user.
//
// Before the producer has accepted the subscription, or while another change
// of terms waits for its answer, the change is asked for as soon as it can
// be. A failure to ask comes as a StatusTerms update; a refusal ends the
// subscription, as any refused renegotiation does. After the End it returns
// ErrClosed.
func (c *Client) CannotAnswer(ctx context.Context) error {
	return c.do(ctx, func() {
		c.neg.noAnswers = true
		c.tellNoAnswers()
	})
}

// tellNoAnswers asks for the change CannotAnswer wants, when it is wanted
// and can be asked for now. It runs on the owner goroutine.
func (c *Client) tellNoAnswers() {
	n := &c.neg
	if !n.noAnswers || n.subID == "" || n.pending != nil || n.end != "" {
		return
	}
	n.noAnswers = false
	no := false
	changes := protocol.Capabilities{SupportsConfirmationReply: &no, SupportsClarificationReply: &no}
	msg, err := session.Renegotiate(n.subID, changes)
	if err == nil {
		n.pending = &changes
		err = c.sendAnswered(context.Background(), msg)
	}
	if err != nil {
		n.pending = nil
		c.say(StatusTerms, fmt.Sprintf("Could not tell the producer that nobody can answer here: %v. Its prompts wait until their time runs out.", err))
	}
}

// answerless reports whether this subscription told the producer that
// nobody here can answer prompts of p's kind (its honoured terms, or terms
// asked for and not yet answered: a producer may apply the defaults before
// its answer comes). The engine asks it (session.Engine.SetAnswerless), so
// a prompt the producer then settles by default is said to have taken its
// default because of this subscriber, not to be settled elsewhere.
func (c *Client) answerless(p *session.Prompt) bool {
	if p == nil || p.Event == nil || c.neg.subID == "" {
		return false
	}
	terms := c.neg.honored
	if c.neg.pending != nil {
		terms = terms.Merge(*c.neg.pending)
	}
	can := terms.SupportsClarificationReply
	if p.Event.Type == protocol.TypeAwaitingConfirmation {
		can = terms.SupportsConfirmationReply
	}
	return can != nil && !*can
}
