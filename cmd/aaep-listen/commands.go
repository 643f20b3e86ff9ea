package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
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
		l.emptyLine(now)
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
		if p := l.pick(c.Prompt, "", c.Word); p != nil {
			l.say(announce.PromptDetails(p, now))
		}
	case line.VerbAccept, line.VerbReject:
		p := l.pick(c.Prompt, protocol.TypeAwaitingConfirmation, c.Word)
		if p == nil {
			return false
		}
		if p.Event.Type == protocol.TypeAwaitingClarify {
			// "yes" and "no" answer a yes/no question.
			l.clarify(ctx, p.Number, c.Word, now)
			return false
		}
		decision := protocol.DecisionAccept
		if c.Verb == line.VerbReject {
			decision = protocol.DecisionReject
		}
		if c.Always {
			l.rememberAlways(p, decision)
		}
		l.confirm(ctx, p.Number, decision, c.Rationale, now)
	case line.VerbAnswer, line.VerbText:
		p := l.pick(c.Prompt, protocol.TypeAwaitingClarify, "answer")
		if p == nil {
			return false
		}
		if p.Event.Type != protocol.TypeAwaitingClarify {
			l.say(fmt.Sprintf("Prompt %d asks for a decision: type accept %d, or reject %d.", p.Number, p.Number, p.Number))
			return false
		}
		l.clarify(ctx, p.Number, c.Arg, now)
	}
	return false
}

// parsed reads each line of lines as line mode does, into the command do
// carries out; it closes when lines closes.
func parsed(lines <-chan string) <-chan line.Command {
	out := make(chan line.Command)
	go func() {
		defer close(out)
		for s := range lines {
			out <- line.Parse(s)
		}
	}()
	return out
}

// emptyLine answers nothing: an Enter pressed by accident must never send
// an answer, to a confirmation or to a question. When exactly one prompt
// waits, it says so and how to answer it (a question's default is named:
// it applies when the time runs out). Otherwise a blank line says nothing.
func (l *listener) emptyLine(now time.Time) {
	pending := l.eng.Pending()
	if len(pending) != 1 {
		return
	}
	p := pending[0]
	how := fmt.Sprintf("To answer prompt %d, type: accept %d, or: reject %d.", p.Number, p.Number, p.Number)
	if p.Event.Type == protocol.TypeAwaitingClarify {
		_, err := l.eng.Clarify(p.Number, "", now) // refused: it says how, and the default
		how = err.Error()
	}
	l.say("An empty line answers nothing; nothing was sent. " + how)
}

// pick finds the prompt a command is about: the one numbered n, or, when n is
// 0, the only pending prompt (of type typ when several kinds wait). It tells
// the user why when there is none.
func (l *listener) pick(n int, typ, word string) *session.Prompt {
	pending := l.eng.Pending()
	if n > 0 {
		for _, p := range pending {
			if p.Number == n {
				return p
			}
		}
		why := fmt.Sprintf("No prompt %d is waiting for an answer.", n)
		if err := l.eng.WhyNot(n, l.o.Now()); err != nil {
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
// (may be empty).
func (l *listener) confirm(ctx context.Context, n int, decision, rationale string, now time.Time) {
	r, err := l.eng.ConfirmBecause(n, decision, l.o.DecidedBy, rationale, now)
	if err != nil {
		l.say(err.Error())
		return
	}
	l.send(ctx, r, now)
}

// confirmBy answers confirmation n with decidedBy as the reply's decided_by.
func (l *listener) confirmBy(ctx context.Context, n int, decision, decidedBy string, now time.Time) {
	r, err := l.eng.ConfirmBy(n, decision, decidedBy, now)
	if err != nil {
		l.say(err.Error())
		return
	}
	l.send(ctx, r, now)
}

func (l *listener) clarify(ctx context.Context, n int, input string, now time.Time) {
	r, err := l.eng.Clarify(n, input, now)
	if err != nil {
		l.say(err.Error())
		return
	}
	l.send(ctx, r, now)
}

func (l *listener) send(ctx context.Context, r session.Reply, now time.Time) {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	msg, wrapped, err := l.o.wrap(r.Body)
	if err == nil {
		err = l.conn.Send(ctx, msg)
	}
	l.auditReply(r, l.o.signed(wrapped), err, now)
	if settledAlready(err) && l.eng.SettledElsewhere(r, now) {
		return // another subscriber answered first; the engine told the user
	}
	if err != nil {
		l.say(fmt.Sprintf("Could not send your answer to prompt %d: %v. The prompt is still waiting; try again.",
			r.Prompt.Number, err))
		return
	}
	l.eng.Sent(r, now)
	l.say(l.o.signedWords(wrapped))
}

// settledAlready reports whether err is a producer refusing a reply because
// its prompt is settled already (409 Conflict: another reply came first).
func settledAlready(err error) bool {
	var h *transport.HTTPError
	return errors.As(err, &h) && h.StatusCode == http.StatusConflict
}

func (l *listener) listPending(now time.Time) {
	pending := l.eng.Pending()
	if len(pending) == 0 {
		l.say("No prompt is waiting for an answer.")
		return
	}
	for _, p := range pending {
		l.say(announce.PendingLine(p, now))
	}
}

// topic and promptKind are announce's wording, under the names decide.go
// uses (it is moving to the subscriber package, which can call announce).
func topic(p *session.Prompt) string      { return announce.PromptTopic(p) }
func promptKind(p *session.Prompt) string { return announce.PromptKind(p) }
