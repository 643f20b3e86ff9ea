package announce

import (
	"fmt"
	"github.com/aaep-term/aaep-term/internal/prose"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// This file words what is at stake in a prompt, for the first announcement
// and for the reminders the session engine gives from its own clock.

// stakes says what a confirmation risks: its consequence, risk level and
// whether it can be undone. It is empty for other events.
func stakes(ev *protocol.Event) string {
	if ev.Type != protocol.TypeAwaitingConfirmation {
		return ""
	}
	var b strings.Builder
	if c := theirs(ev.Consequence); c != "" {
		b.WriteString(" " + prose.Stop("Consequence: "+c))
	}
	if ev.RiskLevel != "" {
		b.WriteString(" Risk: " + protocol.Sanitize(ev.RiskLevel) + ".")
	}
	switch ev.Undo() {
	case protocol.UndoCannot:
		b.WriteString(" This cannot be undone.")
	case protocol.UndoWithEffort:
		b.WriteString(" Undoing it takes effort.")
	case protocol.UndoReversible:
		b.WriteString(" It can be undone.")
	}
	return b.String()
}

// reminderWords words a reminder: which prompt, how long is left, what it
// asks, what is at stake and what happens without an answer.
func reminderWords(d session.Delivery) string {
	ev := d.Event
	n := number(d.Prompt)
	last := ""
	if d.Reminder >= 2 {
		last = "Last reminder: "
	} else {
		last = "Reminder: "
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%sprompt %d is still waiting, %s left: %s", last, n, timeLeft(d), prose.Stop(promptTopic(ev)))
	b.WriteString(stakes(ev))
	// How to answer is the output's to say (the line adds "To answer,
	// type: …"), as for the prompt itself.
	fmt.Fprintf(&b, " Without an answer the agent will %s.", defaultDecision(ev))
	return once(b.String())
}

// reminderPriority is how prominent a reminder is: the last one always
// interrupts; the first interrupts when the prompt is critical, risky or
// cannot be undone, and is read in turn otherwise.
func reminderPriority(d session.Delivery) Priority {
	ev := d.Event
	if d.Reminder >= 2 || ev == nil {
		return Critical
	}
	if ev.Urgency == protocol.UrgencyCritical || ev.RiskLevel == "high" || ev.RiskLevel == "medium" || ev.Undo().CannotBeUndone() {
		return Critical
	}
	return Normal
}
