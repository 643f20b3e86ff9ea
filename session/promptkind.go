package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/aaep-term/aaep-term/protocol"
)

// This file says what a prompt is and what it asks, in the words every
// reader of a prompt shares: the announcer, the TUI and the audit log.

// The kinds of prompt, as Kind names them.
const (
	AsksQuestion     = "question"     // a clarification: answered with text
	AsksConfirmation = "confirmation" // answered accept or reject
)

// Kind says in a word what p asks for: AsksQuestion (a clarification) or
// AsksConfirmation.
func (p *Prompt) Kind() string {
	if p.Event.Type == protocol.TypeAwaitingClarify {
		return AsksQuestion
	}
	return AsksConfirmation
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

// Digest names the words of p that a person is shown and answers: its
// producer, session, kind, reply token, tool, what it asks and every fact
// of its stakes or choices. Two prompts with one digest ask the same thing
// of the same producer; an answer bound to a digest applies to no prompt
// whose words differ.
func (p *Prompt) Digest() string {
	ev := p.Event
	words, err := json.Marshal([]any{ev.Producer.AgentID, ev.Producer.AgentName, ev.SessionID, ev.Type, ev.ReplyToken,
		p.Tool, ev.Action, ev.Consequence, ev.RiskLevel, ev.Reversibility, ev.Irreversible, ev.DefaultDecision,
		ev.AllowedReplies, ev.TimeoutSeconds, ev.Question, ev.Choices, ev.AcceptedResponseKinds, ev.ClarifyContext,
		ev.DefaultResponse, ev.HasDefaultResponse, []byte(ev.ExtraContext), ev.Raw})
	if err != nil { // only plain values above: cannot happen; still, no digest matches no other
		words = []byte(err.Error() + ev.EventID)
	}
	sum := sha256.Sum256(words)
	return hex.EncodeToString(sum[:12])
}
