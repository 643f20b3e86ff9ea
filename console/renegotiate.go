package console

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/internal/prose"

	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// renegotiate carries out "set NAME VALUE": the client sends the producer
// a subscription.renegotiate with the one change. The producer's answer
// comes in the client's stream; a refusal ends the subscription.
func (l *Listener) renegotiate(ctx context.Context, c command.Command) {
	for _, a := range l.agentsFor(c) {
		l.renegotiateOne(ctx, a, c)
	}
}

// renegotiateOne asks agent a for the change.
func (l *Listener) renegotiateOne(ctx context.Context, a *agent, c command.Command) {
	say := func(s string) { l.say(l.forAgent(a, s)) }
	terms, changes, err := a.terms.Set(c.Word, c.Arg)
	if err != nil {
		say(prose.Sentence(err.Error()))
		return
	}
	switch c.Word {
	case "include":
		l.sayAll(session.UnknownPatterns(c.Word, terms.Include))
	case "exclude":
		l.sayAll(session.UnknownPatterns(c.Word, terms.Exclude))
	}
	if c.Word == "verbosity" { // how the listener itself phrases events, whatever the producer says
		a.ann.SetVerbosity(terms.Verbosity)
		if len(l.agents()) == 1 && !l.cfg.FixedVerbosity {
			l.cfg.Announce.Verbosity = terms.Verbosity
		}
	}
	err = a.c.Renegotiate(ctx, changes)
	switch {
	case errors.Is(err, subscriber.ErrNoSubscription) && c.Word == "verbosity":
		a.terms = terms
		say(fmt.Sprintf("Announcing at %s verbosity from now on. This producer did not negotiate terms, so it was not asked.", terms.Verbosity))
	case errors.Is(err, subscriber.ErrNoSubscription):
		say("This producer did not negotiate terms with a subscription, so they cannot be changed while listening. " +
			"Start again with the flag instead, such as --rate 2.")
	case errors.Is(err, subscriber.ErrRenegotiating):
		say("A change of terms is already waiting for the producer's answer; try again once it has answered.")
	case err != nil:
		say(fmt.Sprintf("Could not ask the producer for new terms: %v. The terms are unchanged.", err))
	default:
		a.terms = terms
		say(fmt.Sprintf("Asked the producer to set %s to %s.", c.Word, strings.Join(session.List(c.Arg), ", ")))
	}
}

func (l *Listener) sayAll(lines []string) {
	for _, s := range lines {
		l.say(s)
	}
}
