package console

// input.go: what the listener tells the producer when nobody is left to
// type an answer: standard input is /dev/null from the start, or it ends.

import (
	"context"
	"io"
	"os"

	"github.com/aaep-term/aaep-term/subscriber"
)

// Lines the user is told when standard input is closed.
const (
	inputClosedRules = "Standard input is closed: only your --policy or --auto-reply rules can answer now; " +
		"other prompts wait until their time runs out."
	inputClosedAlways = "Standard input is closed: only the answers you said to give always can answer now; " +
		"other prompts wait until their time runs out."
	inputClosedAtStart = "Standard input is closed, so nobody can answer here: the subscription says so, " +
		"and the producer applies each prompt's default decision at once."
	// Without a subscription nothing tells the producer: only what is
	// known is said.
	inputClosedUntold = "Standard input is closed, so nobody can answer here. This producer takes no subscription, " +
		"so it cannot be told: its prompts are shown and left unanswered."
	inputClosedNow = "Standard input is closed, so nobody can answer here: asking the producer " +
		"to apply each prompt's default decision at once."
)

// noInput reports whether in can bring nothing at all: there is none, or
// it is the null device (a program started with standard input closed).
func noInput(in io.Reader) bool {
	if in == nil {
		return true
	}
	f, ok := in.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}

// othersAnswer reports whether something other than typed input may answer
// prompts: a --policy file, --auto-reply, or an "always" answer given.
func (l *Listener) othersAnswer() string {
	switch {
	case l.cfg.RulesAnswer:
		return inputClosedRules
	case l.keptAlways:
		return inputClosedAlways
	}
	return ""
}

// InputAtStart is called before subscribing. When standard input can bring
// nothing and nothing else answers (otherInput: the view or a braille
// display takes answers), the subscription declares that it cannot answer
// (spec §5.3.1.4), so the producer applies each prompt's default at once;
// the line saying so follows the first update.
func (l *Listener) InputAtStart(otherInput bool) {
	if otherInput || l.cfg.EventsOnStdin || !noInput(l.cfg.IO.In) {
		return // with -, standard input is the events
	}
	l.inputGone = true
	if s := l.othersAnswer(); s != "" {
		l.inputClosed = s
		return
	}
	if !l.cfg.Terms.CanConfirm && !l.cfg.Terms.CanClarify {
		return // nothing could answer anyway
	}
	// Every agent is asked as unable to answer (addAgent).
	l.cfg.Terms.CanConfirm, l.cfg.Terms.CanClarify = false, false
	l.opening = inputClosedAtStart
}

// sayOpening says the line held for the start (inputAtStart) once it is
// known whether the producer takes a subscription: when one is made, or at
// the first event of an agent without one.
func (l *Listener) sayOpening(a *agent, u *subscriber.Update) {
	switch {
	case l.opening == "":
	case u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusSubscribed:
		l.say(l.opening)
		l.opening = ""
	case u.Kind == subscriber.KindDelivery:
		if a.c.Terms().SubscriptionID == "" {
			l.opening = inputClosedUntold
		}
		l.say(l.opening)
		l.opening = ""
	}
}

// inputEnded is told when standard input ends, so nobody can type an
// answer any more. With a --policy, --auto-reply or an "always" answer,
// rules can still answer: the line is said before the next prompt offered
// (or at the end). Otherwise the client renegotiates: it can no longer
// answer confirmations or clarifications, and a conforming producer applies
// each prompt's default at once, the waiting ones included. Nothing is
// answered for the user.
func (l *Listener) inputEnded(ctx context.Context) {
	if l.inputGone {
		return
	}
	l.inputGone = true
	if s := l.othersAnswer(); s != "" {
		l.inputClosed = s
		return
	}
	var asked []*agent
	for _, a := range l.agents() {
		if !a.Ended() && (a.terms.CanConfirm || a.terms.CanClarify) {
			asked = append(asked, a)
		}
	}
	if len(asked) == 0 {
		return
	}
	l.say(inputClosedNow)
	for _, a := range asked {
		if err := a.c.CannotAnswer(ctx); err == nil {
			a.terms.CanConfirm, a.terms.CanClarify = false, false
		}
	}
}
