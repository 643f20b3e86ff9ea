package subscriber

// answerless.go: telling the producer that nobody can answer here any more.

import (
	"context"
	"fmt"
	"strings"

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

// answerlessNote words a prompt the producer settled after this
// subscription told it that nobody here can answer (its honoured terms say
// no replies of the prompt's kind): the producer applied the prompt's
// default because of this subscriber, which the engine, knowing only that
// the agent stopped waiting, would call settled elsewhere.
func (c *Client) answerlessNote(d *session.Delivery) {
	p := d.Prompt
	if p == nil || p.Event == nil || c.neg.subID == "" {
		return
	}
	terms := c.neg.honored
	if c.neg.pending != nil {
		// Asked for and not yet answered: a producer may apply the
		// defaults before its answer comes.
		terms = terms.Merge(*c.neg.pending)
	}
	can := terms.SupportsClarificationReply
	what := "its default answer"
	if p.Event.Type == protocol.TypeAwaitingConfirmation {
		can = terms.SupportsConfirmationReply
		what = "its default decision, to reject"
		if p.Event.DefaultDecision == protocol.DecisionAccept {
			what = "its default decision, to accept"
		}
	}
	if can == nil || *can {
		return
	}
	note := fmt.Sprintf("Prompt %d took %s: nobody here can answer any more and the producer was told so, so it applied the default.", p.Number, what)
	if _, after, ok := strings.Cut(d.Note, "; the agent is now "); ok {
		note += " The agent is now " + after
	}
	d.Note = note
}
