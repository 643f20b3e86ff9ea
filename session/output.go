package session

import (
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// DeliveryKind says what a Delivery reports.
type DeliveryKind int

// Kinds of delivery.
const (
	// KindEvent is an event released in order, to be announced.
	KindEvent DeliveryKind = iota
	// KindPromptExpired: a pending prompt's deadline passed unanswered; the
	// default decision applies.
	KindPromptExpired
	// KindPromptCancelled: a pending prompt was withdrawn by the producer
	// ending its session.
	KindPromptCancelled
	// KindPromptStale: a prompt that arrived already settled (a later event
	// of its session left awaiting_input, the session had ended, or its
	// deadline had passed); it cannot be answered.
	KindPromptStale
	// KindPromptReminder: a pending prompt is still waiting (50 % and 10 % of its time left).
	KindPromptReminder
	// KindReplySent: the user's answer was handed to the transport.
	KindReplySent
	// KindPromptResolved: the agent moved on from awaiting_input (spec
	// §6.7.2): another subscriber answered it, or the agent stopped waiting.
	// Note says what the agent did.
	KindPromptResolved
	// KindSafetyWarning: something the user must hear about the safety
	// contract: a risky tool call that was not confirmed, or a confirmation
	// whose default decision breaks the rules. Note says what; it is critical.
	KindSafetyWarning
	// KindPromptNotOffered: a prompt announced but not offered for an
	// answer, because its reply token is also on another pending prompt or
	// because its agent (or all agents) have too many prompts waiting. Note
	// says why; it is critical. Its Prompt is numbered when the user may ask
	// about it (answering it by number says why it cannot be answered).
	KindPromptNotOffered
	// KindPromptLeft: the listener stopped with a prompt pending and nothing
	// told the producer (no subscription to close): the prompt is left
	// unanswered and the agent is still waiting for an answer.
	KindPromptLeft
)

func (k DeliveryKind) String() string {
	switch k {
	case KindEvent:
		return "event"
	case KindPromptExpired:
		return "prompt-expired"
	case KindPromptCancelled:
		return "prompt-cancelled"
	case KindPromptStale:
		return "prompt-stale"
	case KindPromptReminder:
		return "prompt-reminder"
	case KindReplySent:
		return "reply-sent"
	case KindPromptResolved:
		return "prompt-resolved"
	case KindSafetyWarning:
		return "safety-warning"
	case KindPromptNotOffered:
		return "prompt-not-offered"
	case KindPromptLeft:
		return "prompt-left"
	}
	return "unknown"
}

// Delivery is something the engine wants announced.
type Delivery struct {
	Kind   DeliveryKind
	At     time.Time       // engine clock when it was released
	Event  *protocol.Event // the event, or the prompt's event for prompt kinds
	Prompt *Prompt         // set when Event is (or concerns) a confirmation or clarification
	Reply  []byte          // KindReplySent: the reply as sent
	// Note is a sentence the engine adds: for KindSafetyWarning and
	// KindPromptResolved what happened, for a KindEvent tool call or
	// confirmation how it relates to the other (already sanitized).
	Note string
	// Reminder is, for KindPromptReminder, 1 at half the time left and 2 at
	// a tenth (the last one).
	Reminder int
	// Rule is, for a KindSafetyWarning about a rule the capture checker
	// applies too, its code (protocol.Rule…); empty otherwise.
	Rule string
	// Cause is, for KindPromptExpired and KindPromptLeft, why the prompt
	// stopped waiting: its time ran out (the zero value), or the
	// subscription ended and how.
	Cause Cause
}

// Cause says why a prompt stopped waiting for an answer from here.
type Cause int

// Causes of a prompt's end.
const (
	// CauseTimeout: its time ran out.
	CauseTimeout Cause = iota
	// CauseQuit: the user stopped listening and the producer was told the
	// subscription is closed.
	CauseQuit
	// CauseQuitUntold: the user stopped listening, but telling the producer
	// the subscription is closed failed.
	CauseQuitUntold
	// CauseGone: the producer ended the subscription or its stream, or the
	// connection to it was lost.
	CauseGone
	// CauseEnded: the subscription ended for another reason (its terms, a
	// manifest that did not verify), and the producer was told.
	CauseEnded
)

func (c Cause) String() string {
	switch c {
	case CauseTimeout:
		return "timeout"
	case CauseQuit:
		return "quit"
	case CauseQuitUntold:
		return "quit-untold"
	case CauseGone:
		return "gone"
	case CauseEnded:
		return "ended"
	}
	return "unknown"
}

// Diagnostic is a problem the user (or developer) should hear about; none is fatal.
type Diagnostic struct {
	At        time.Time
	Code      string // stable, machine-readable: "invalid", "duplicate", "gap", "late", "lifecycle", ...
	SessionID string
	EventID   string
	Message   string // a plain sentence, already sanitized
}

// Output receives what the engine releases, in order, on the goroutine that
// drives the engine.
type Output interface {
	Deliver(Delivery)
	Diagnose(Diagnostic)
}

// PromptState is where a prompt stands.
type PromptState int

// Prompt states.
const (
	PromptPending PromptState = iota
	PromptAnswered
	PromptExpired
	PromptCancelled
	PromptStale
	PromptResolved // the agent moved on: answered elsewhere, or no longer waiting
	// PromptNotOffered: announced, still waiting at the producer, but never
	// answerable here (a reply token on two prompts, or a flood of prompts).
	PromptNotOffered
	// PromptLeft: the listener stopped without the producer knowing; the
	// agent is still waiting for an answer.
	PromptLeft
)

func (s PromptState) String() string {
	switch s {
	case PromptPending:
		return "pending"
	case PromptAnswered:
		return "answered"
	case PromptExpired:
		return "expired"
	case PromptCancelled:
		return "cancelled"
	case PromptStale:
		return "stale"
	case PromptResolved:
		return "resolved"
	case PromptNotOffered:
		return "not-offered"
	case PromptLeft:
		return "left-unanswered"
	}
	return "unknown"
}

// Prompt is a confirmation or clarification the user may answer.
type Prompt struct {
	Number   int // 1, 2, … in order of arrival; stable while the prompt lives
	Event    *protocol.Event
	Deadline time.Time // our clock: receive time + timeout_seconds, capped by timestamp + timeout
	State    PromptState
	// Decision is, for a confirmation, the decision that settled it: the one
	// sent, or the default once it expired. Empty while pending, and when the
	// agent moved on without telling.
	Decision string
	// DecidedBy is who decided, as in the reply's decided_by ("" for the
	// user when no name is configured, "default" after expiry).
	DecidedBy string

	// Tool is the tool the prompt is about: its own tool field, or the tool
	// call announced just before it (the order deployed producers use).
	Tool string

	linked bool   // a tool call was already linked to this confirmation
	why    string // PromptNotOffered: why it cannot be answered, a sentence
}
