package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"strings"

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
	if l.agentCommand(ctx, c) {
		return false
	}
	switch c.Verb {
	case line.VerbAll, line.VerbOnly, line.VerbCancel: // one agent, and a question waits (or no acp: agent): its answer
		c = line.Command{Verb: line.VerbText, Arg: strings.TrimSpace(c.Word + " " + c.Agent)}
	case line.VerbTell: // no acp: agent runs
		c = line.Command{Verb: line.VerbText, Arg: c.Word + " " + c.Arg}
	}
	switch c.Verb {
	case line.VerbEmpty:
		l.emptyLine(ctx)
	case line.VerbQuit:
		return true // quit AGENT is agentCommand's

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
			l.say(l.forAgent(p.a, announce.PromptDetails(p.Prompt, now)))
		}
	case line.VerbAccept, line.VerbReject:
		p := l.pick(ctx, c.Prompt, protocol.TypeAwaitingConfirmation, c.Word)
		if p == nil {
			return false
		}
		if p.Event.Type == protocol.TypeAwaitingClarify {
			// "yes" and "no" answer a yes/no question.
			l.clarify(ctx, p, c.Word)
			return false
		}
		decision := protocol.DecisionAccept
		if c.Verb == line.VerbReject {
			decision = protocol.DecisionReject
		}
		l.confirm(ctx, p, decision, c.Rationale, c.Always)
	case line.VerbAnswer, line.VerbText:
		p := l.pick(ctx, c.Prompt, protocol.TypeAwaitingClarify, "answer")
		if p == nil {
			return false
		}
		if p.Event.Type != protocol.TypeAwaitingClarify {
			l.say(fmt.Sprintf("Prompt %d asks for a decision: type accept %d, or reject %d.", p.Number, p.Number, p.Number))
			return false
		}
		l.clarify(ctx, p, c.Arg)
	}
	return false
}

// emptyLine answers nothing: an Enter pressed by accident must never send
// an answer, to a confirmation or to a question. When exactly one prompt
// waits, it says so and how to answer it (a question's default is named:
// it applies when the time runs out). Otherwise a blank line says nothing.
func (l *listener) emptyLine(ctx context.Context) {
	pending := l.pending()
	if len(pending) != 1 {
		return
	}
	p := pending[0]
	how := fmt.Sprintf("To answer prompt %d, type: accept %d, or: reject %d.", p.Number, p.Number, p.Number)
	if p.Event.Type == protocol.TypeAwaitingClarify {
		if err := p.a.c.Answer(ctx, p.Number, ""); err != nil { // refused: it says how, and the default
			how = err.Error()
		}
	}
	l.say("An empty line answers nothing; nothing was sent. " + how)
}

// agentPrompt is a prompt waiting for an answer, with the agent that asked.
type agentPrompt struct {
	*session.Prompt
	a *agent
}

// pending lists the prompts of every agent waiting for an answer, by
// number (numbers are unique across agents: subscriber.Group).
func (l *listener) pending() []agentPrompt {
	mps := l.group.Pending()
	ps := make([]agentPrompt, len(mps))
	for i, p := range mps {
		ps[i] = agentPrompt{p.Prompt, p.Member.Value.(*agent)}
	}
	return ps
}

func prompts(ps []agentPrompt) []*session.Prompt {
	out := make([]*session.Prompt, len(ps))
	for i, p := range ps {
		out[i] = p.Prompt
	}
	return out
}

// whyNot says why prompt n cannot be answered: the agent that numbered it
// knows (settled, expired, its agent gone); "" when none did.
func (l *listener) whyNot(ctx context.Context, n int) string {
	err := l.group.WhyNot(ctx, n)
	var ended *subscriber.EndedError
	switch {
	case errors.As(err, &ended):
		return err.Error()
	case err != nil:
		return l.forAgent(l.group.Owner(n).Value.(*agent), err.Error())
	}
	return ""
}

// forAgent starts a sentence about agent a with its name, in a run of
// several agents.
func (l *listener) forAgent(a *agent, s string) string {
	if l.multi {
		return a.Tag() + ": " + s
	}
	return s
}

// pick finds the prompt a command is about: the one numbered n, or, when n is
// 0, the only pending prompt (of type typ when several kinds wait). It tells
// the user why when there is none.
func (l *listener) pick(ctx context.Context, n int, typ, word string) *agentPrompt {
	pending := l.pending()
	if n > 0 {
		for i, p := range pending {
			if p.Number == n {
				return &pending[i]
			}
		}
		why := fmt.Sprintf("No prompt %d is waiting for an answer.", n)
		if w := l.whyNot(ctx, n); w != "" {
			why = w // already answered, expired, withdrawn, …
		}
		l.say(why + announce.PendingSummary(prompts(pending)))
		return nil
	}
	switch len(pending) {
	case 0:
		l.say("No prompt is waiting for an answer. Type help for commands.")
		return nil
	case 1:
		return &pending[0]
	}
	var match []agentPrompt
	for _, p := range pending {
		if p.Event.Type == typ {
			match = append(match, p)
		}
	}
	if len(match) == 1 {
		return &match[0]
	}
	l.say(fmt.Sprintf("%d prompts are waiting; say which, for example: %s %d.%s",
		len(pending), word, pending[0].Number, announce.PendingSummary(prompts(pending))))
	return nil
}

// confirm answers confirmation p for the user, with the reason they typed
// (may be empty); always keeps the answer for the tool, through the gate.
// It goes to the agent that asked, and to no other.
func (l *listener) confirm(ctx context.Context, p *agentPrompt, decision, rationale string, always bool) {
	opts := []subscriber.ConfirmOption{subscriber.Because(rationale)}
	if always {
		opts = append(opts, subscriber.Always())
	}
	err := l.group.Confirm(ctx, p.Number, decision, opts...)
	l.keptAlways = l.keptAlways || (always && err == nil)
	l.answered(p.a, err)
}

func (l *listener) clarify(ctx context.Context, p *agentPrompt, input string) {
	l.answered(p.a, l.group.Answer(ctx, p.Number, input))
}

// answered says why an answer was refused; a reply that could not be sent
// is told by the client's Reply update.
func (l *listener) answered(a *agent, err error) {
	var se *subscriber.SendError
	if err != nil && !errors.As(err, &se) {
		l.say(l.forAgent(a, err.Error()))
	}
}

func (l *listener) listPending(now time.Time) {
	pending := l.pending()
	if len(pending) == 0 {
		l.say("No prompt is waiting for an answer.")
		return
	}
	for _, p := range pending {
		l.say(l.forAgent(p.a, announce.PendingLine(p.Prompt, now)))
	}
}
