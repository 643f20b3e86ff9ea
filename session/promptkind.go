package session

import "github.com/aaep-term/aaep-term/protocol"

// This file says what a prompt is and what it asks, in the words every
// reader of a prompt shares: the announcer, the TUI and the audit log.

// Kind says in a word what p asks for: "question" (a clarification) or
// "confirmation".
func (p *Prompt) Kind() string {
	if p.Event.Type == protocol.TypeAwaitingClarify {
		return "question"
	}
	return "confirmation"
}

// Asks is what p asks, as the producer sent it (untrusted text): the
// question of a clarification, else the action to confirm.
func (p *Prompt) Asks() protocol.Text { return Asks(p.Event) }

// Asks is what the prompt event ev asks: the question of a clarification,
// else the action to confirm.
func Asks(ev *protocol.Event) protocol.Text {
	if ev.Type == protocol.TypeAwaitingClarify {
		return ev.Question
	}
	return ev.Action
}
