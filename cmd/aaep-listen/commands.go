package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// command carries out one typed line. It reports whether the user quit.
func (l *listener) command(ctx context.Context, s string) (quit bool) {
	now := l.o.Now()
	c := line.Parse(s)
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
			l.say(details(p, now))
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
		l.say(why + pendingSummary(pending))
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
		len(pending), word, pending[0].Number, pendingSummary(pending)))
	return nil
}

// confirm answers confirmation n for the user, with the reason they typed
// (may be empty); always keeps the answer for the tool, through the gate.
func (l *listener) confirm(ctx context.Context, n int, decision, rationale string, always bool) {
	opts := []subscriber.ConfirmOption{subscriber.Because(rationale)}
	if always {
		opts = append(opts, subscriber.Always())
	}
	l.answered(l.c.Confirm(ctx, n, decision, opts...))
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
		l.say(fmt.Sprintf("Prompt %d, %s, %s left: %s", p.Number, promptKind(p), announce.Duration(p.Deadline.Sub(now)), topic(p)))
	}
}

// details reads a prompt in full, extra context included.
func details(p *session.Prompt, now time.Time) string {
	ev := p.Event
	var b strings.Builder
	fmt.Fprintf(&b, "Prompt %d, %s from %s, %s left.", p.Number, promptKind(p), agent(ev), announce.Duration(p.Deadline.Sub(now)))
	add := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			b.WriteString(" " + prose.Stop(label+": "+v))
		}
	}
	if ev.Type == protocol.TypeAwaitingClarify {
		add("Question", ev.Question.String())
		add("Context", ev.ClarifyContext.String())
		for i, c := range ev.Choices {
			add(fmt.Sprintf("Choice %d", i+1), c.Label.String()+" (value "+protocol.Sanitize(c.Value)+")")
		}
		add("Accepted answers", strings.Join(ev.AcceptedResponseKinds, ", "))
		if ev.HasDefaultResponse {
			add("Default answer", ev.DefaultResponse.String())
		}
	} else {
		add("Action", ev.Action.String())
		add("Consequence", ev.Consequence.String())
		add("Risk", ev.RiskLevel)
		add("Can be undone", ev.Undo().Words())
		add("Allowed answers", strings.Join(ev.AllowedReplies, ", "))
		add("Default decision", ev.DefaultDecision)
		if len(ev.ExtraContext) > 0 {
			add("Extra context", protocol.Sanitize(string(ev.ExtraContext)))
		}
	}
	add("Summary", ev.Summary("detailed").String())
	return b.String()
}

func pendingSummary(pending []*session.Prompt) string {
	if len(pending) == 0 {
		return ""
	}
	// Each prompt is a sentence of its own: its topic may end in its own
	// question mark or stop, and nothing is put after that.
	parts := []string{"Waiting for an answer:"}
	for i, p := range pending {
		word := "Prompt"
		if i == 0 {
			word = "prompt"
		}
		parts = append(parts, prose.Stop(fmt.Sprintf("%s %d, %s: %s", word, p.Number, promptKind(p), topic(p))))
	}
	return " " + strings.Join(parts, " ")
}

func promptKind(p *session.Prompt) string {
	if p.Event.Type == protocol.TypeAwaitingClarify {
		return "question"
	}
	return "confirmation"
}

func topic(p *session.Prompt) string {
	if p.Event.Type == protocol.TypeAwaitingClarify {
		return p.Event.Question.String()
	}
	return p.Event.Action.String()
}

func agent(ev *protocol.Event) string {
	if n := ev.Producer.AgentName.Name(); n != "" {
		return n
	}
	return protocol.Name(ev.Producer.AgentID)
}
