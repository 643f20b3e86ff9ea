package subscriber

// types.go: the names a program handles, from the packages beneath the
// client, so that a program against it imports subscriber alone.

import (
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// What Config is made of.
type (
	// Identity names the subscriber in its subscription request.
	Identity = session.Identity
	// RequestedTerms are the terms a subscription asks for (Config.Terms);
	// Terms is where they stand once the producer has answered.
	RequestedTerms = session.Terms
	// Gate decides prompts without the user (Config.Gate).
	Gate = policy.Gate
	// TransportOptions configures the connection (Config.Transport).
	TransportOptions = transport.Options
)

// What an Update carries.
type (
	// Delivery is an event released in order, or what became of a prompt.
	Delivery = session.Delivery
	// DeliveryKind says which a Delivery is.
	DeliveryKind = session.DeliveryKind
	// Event is a producer's event; its text fields are Text.
	Event = protocol.Event
	// Text is a producer's words: printing it (its String method)
	// sanitizes it.
	Text = protocol.Text
	// Prompt is a confirmation or clarification the agent waits on.
	Prompt = session.Prompt
	// PromptState is where a Prompt stands.
	PromptState = session.PromptState
	// Cause says why a prompt pending at the end stops waiting.
	Cause = session.Cause
	// Diagnostic is a problem with what the producer sent.
	Diagnostic = session.Diagnostic
	// Span is where the producer's words are in a sentence (SplitTheirs).
	Span = protocol.Span
)

// Kinds of Delivery (Delivery.Kind).
const (
	KindEvent            = session.KindEvent
	KindPromptExpired    = session.KindPromptExpired
	KindPromptCancelled  = session.KindPromptCancelled
	KindPromptStale      = session.KindPromptStale
	KindPromptReminder   = session.KindPromptReminder
	KindReplySent        = session.KindReplySent
	KindPromptResolved   = session.KindPromptResolved
	KindSafetyWarning    = session.KindSafetyWarning
	KindPromptNotOffered = session.KindPromptNotOffered
	KindPromptLeft       = session.KindPromptLeft
)

// States of a Prompt (Prompt.State).
const (
	PromptPending   = session.PromptPending
	PromptAnswered  = session.PromptAnswered
	PromptExpired   = session.PromptExpired
	PromptCancelled = session.PromptCancelled
	PromptStale     = session.PromptStale
	PromptLeft      = session.PromptLeft
)

// Decisions of a confirmation, for Confirm.
const (
	DecisionAccept = protocol.DecisionAccept
	DecisionReject = protocol.DecisionReject
)

// The core event types (Event.Type), in their compact form.
const (
	TypeSessionStarted       = protocol.TypeSessionStarted
	TypeSessionCompleted     = protocol.TypeSessionCompleted
	TypeSessionErrored       = protocol.TypeSessionErrored
	TypeSessionCancelled     = protocol.TypeSessionCancelled
	TypeStateChanged         = protocol.TypeStateChanged
	TypeProgressUpdated      = protocol.TypeProgressUpdated
	TypeToolInvoked          = protocol.TypeToolInvoked
	TypeToolCompleted        = protocol.TypeToolCompleted
	TypeOutputStreaming      = protocol.TypeOutputStreaming
	TypeAwaitingConfirmation = protocol.TypeAwaitingConfirmation
	TypeAwaitingClarify      = protocol.TypeAwaitingClarify
	TypeHandoffRequested     = protocol.TypeHandoffRequested
)

// Why prompts pending at the end stop waiting (Delivery.Cause).
const (
	CauseTimeout    = session.CauseTimeout
	CauseQuit       = session.CauseQuit
	CauseQuitUntold = session.CauseQuitUntold
	CauseGone       = session.CauseGone
	CauseEnded      = session.CauseEnded
)

// SplitTheirs removes the marks around the producer's words in one of the
// client's sentences (an Update's Text) and returns the plain sentence with
// where those words are in it, as protocol.SplitTheirs does.
func SplitTheirs(text string) (string, []Span) { return protocol.SplitTheirs(text) }
