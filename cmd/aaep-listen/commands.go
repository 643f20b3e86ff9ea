package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// command carries out one typed line. It reports whether the user quit.
func (l *listener) command(ctx context.Context, s string) (quit bool) {
	return l.do(ctx, line.Parse(s))
}

// do carries out one command: a typed line as line.Parse reads it, or an
// action of the TUI (tui.go's commandOf). Both come here as one type, so
// the two cannot drift. It reports whether the user quit.
func (l *listener) do(ctx context.Context, c line.Command) (quit bool) {
	now := l.o.Now()
	switch c.Verb {
	case line.VerbEmpty:
		l.emptyLine(ctx)
	case line.VerbQuit:
		return true
	case line.VerbSet:
		l.renegotiate(ctx, c)
	case line.VerbHelp:
		l.say(line.Help)
	case line.VerbStop:
		l.silence()
	case line.VerbPending:
		l.listPending(now)
	case line.VerbDetails:
		if p := l.pick(ctx, c.Prompt, "", c.Word); p != nil {
			l.say(announce.PromptDetails(p, now))
		}
	case line.VerbAccept, line.VerbReject:
		p := l.pick(ctx, c.Prompt, protocol.TypeAwaitingConfirmation, c.Word)
		if p == nil {
			return false
		}
		if p.Event.Type == protocol.TypeAwaitingClarify {
			// "yes" and "no" answer a yes/no question.
			l.clarify(ctx, p.Number, c.Word)
			return false
		}
		decision := protocol.DecisionAccept
		if c.Verb == line.VerbReject {
			decision = protocol.DecisionReject
		}
		l.confirm(ctx, p.Number, decision, c.Rationale, c.Always)
	case line.VerbAnswer, line.VerbText:
		p := l.pick(ctx, c.Prompt, protocol.TypeAwaitingClarify, "answer")
		if p == nil {
			return false
		}
		if p.Event.Type != protocol.TypeAwaitingClarify {
			l.say(fmt.Sprintf("Prompt %d asks for a decision: type accept %d, or reject %d.", p.Number, p.Number, p.Number))
			return false
		}
		l.clarify(ctx, p.Number, c.Arg)
	}
	return false
}

// emptyLine answers nothing: an Enter pressed by accident must never send
// an answer, to a confirmation or to a question. When exactly one prompt
// waits, it says so and how to answer it (a question's default is named:
// it applies when the time runs out). Otherwise a blank line says nothing.
func (l *listener) emptyLine(ctx context.Context) {
	pending := l.c.Pending()
	if len(pending) != 1 {
		return
	}
	p := pending[0]
	how := fmt.Sprintf("To answer prompt %d, type: accept %d, or: reject %d.", p.Number, p.Number, p.Number)
	if p.Event.Type == protocol.TypeAwaitingClarify {
		if err := l.c.Answer(ctx, p.Number, ""); err != nil { // refused: it says how, and the default
			how = err.Error()
		}
	}
	l.say("An empty line answers nothing; nothing was sent. " + how)
}

// pick finds the prompt a command is about: the one numbered n, or, when n is
// 0, the only pending prompt (of type typ when several kinds wait). It tells
// the user why when there is none.
func (l *listener) pick(ctx context.Context, n int, typ, word string) *session.Prompt {
	pending := l.c.Pending()
	if n > 0 {
		for _, p := range pending {
			if p.Number == n {
				return p
			}
		}
		why := fmt.Sprintf("No prompt %d is waiting for an answer.", n)
		if err := l.c.WhyNot(ctx, n); err != nil {
			why = err.Error() // already answered, expired, withdrawn, …
		}
		l.say(why + announce.PendingSummary(pending))
		return nil
	}
	switch len(pending) {
	case 0:
		l.say("No prompt is waiting for an answer. Type help for commands.")
		return nil
	case 1:
		return pending[0]
	}
	var match []*session.Prompt
	for _, p := range pending {
		if p.Event.Type == typ {
			match = append(match, p)
		}
	}
	if len(match) == 1 {
		return match[0]
	}
	l.say(fmt.Sprintf("%d prompts are waiting; say which, for example: %s %d.%s",
		len(pending), word, pending[0].Number, announce.PendingSummary(pending)))
	return nil
}

// confirm answers confirmation n for the user, with the reason they typed
// (may be empty); always keeps the answer for the tool, through the gate.
func (l *listener) confirm(ctx context.Context, n int, decision, rationale string, always bool) {
	opts := []subscriber.ConfirmOption{subscriber.Because(rationale)}
	if always {
		opts = append(opts, subscriber.Always())
	}
	err := l.c.Confirm(ctx, n, decision, opts...)
	l.keptAlways = l.keptAlways || (always && err == nil)
	l.answered(err)
}

func (l *listener) clarify(ctx context.Context, n int, input string) {
	l.answered(l.c.Answer(ctx, n, input))
}

// answered says why an answer was refused; a reply that could not be sent
// is told by the client's Reply update.
func (l *listener) answered(err error) {
	var se *subscriber.SendError
	if err != nil && !errors.As(err, &se) {
		l.say(err.Error())
	}
}

func (l *listener) listPending(now time.Time) {
	pending := l.c.Pending()
	if len(pending) == 0 {
		l.say("No prompt is waiting for an answer.")
		return
	}
	for _, p := range pending {
		l.say(announce.PendingLine(p, now))
	}
}
