package subscriber

import (
	"time"

	"github.com/aaep-term/aaep-term/session"
)

// Kind says what an Update carries.
type Kind int

const (
	// KindDelivery carries Delivery: an event, or what became of a prompt.
	// A delivery whose Prompt is pending and whose Kind is
	// session.KindEvent offers the prompt: once it is taken from Next, the
	// prompt may be answered.
	KindDelivery Kind = iota
	// KindDiagnostic carries Diagnostic: a problem with what the producer
	// sent or with the connection; nothing was lost.
	KindDiagnostic
	// KindStatus carries Status and Text: one plain sentence about the
	// connection, the subscription, its terms, the manifest, a retry or a
	// decision made without the user.
	KindStatus
	// KindReply carries Reply: a reply sent, or that could not be sent.
	KindReply
	// KindBreak marks where streamed text held for a sentence's end must
	// be said (an announcer's Flush): nothing earlier will follow.
	KindBreak
	// KindEnd is the last update: Text says what ended the subscription,
	// once; Err is non-nil when it ended in failure.
	KindEnd
)

var kindNames = [...]string{"delivery", "diagnostic", "status", "reply", "break", "end"}

// String returns the kind's name in lower case: "delivery", "status", ….
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// StatusKind says what a status notice is about, for programs; Text says it
// for people.
type StatusKind int

const (
	StatusNotice       StatusKind = iota // anything else worth a line
	StatusConnecting                     // dialling the endpoint
	StatusConnected                      // the connection is up (again)
	StatusReconnecting                   // the connection was lost; trying again
	StatusSubscribed                     // the producer accepted the subscription
	StatusRejected                       // the producer refused the subscription
	StatusRetry                          // subscribing again, or counting down to it
	StatusTerms                          // the terms granted or changed
	StatusManifest                       // the result of a manifest check
	StatusDecision                       // a prompt decided without the user, or an "always" kept
	StatusCredentials                    // nothing proves who the subscriber is
	StatusRefused                        // the producer refused a task or cancel sent to it (Tell, CancelTask)
)

var statusNames = [...]string{"notice", "connecting", "connected", "reconnecting", "subscribed", "rejected",
	"retry", "terms", "manifest", "decision", "credentials", "refused"}

// String returns the status kind's name in lower case: "connecting", ….
func (k StatusKind) String() string {
	if int(k) < len(statusNames) {
		return statusNames[k]
	}
	return "unknown"
}

// Update is one thing the client tells, in the order it happened. Kind says
// which fields are set.
type Update struct {
	Kind Kind      // which of the fields below are set
	At   time.Time // the client's clock when it happened

	// Delivery is an event released in order, or what became of a prompt
	// (session.DeliveryKind says which). Its Prompt is a copy, safe to
	// keep. The event's text fields are protocol.Text: printing them
	// sanitizes them; Event.Raw is the producer's bytes, for machines only.
	Delivery   session.Delivery   // KindDelivery
	Diagnostic session.Diagnostic // KindDiagnostic; its Message is sanitized

	Status StatusKind // KindStatus
	// Text is the plain sentence of a status, a reply or the end; already
	// sanitized, with the producer's words marked (protocol.Theirs): an
	// output that isolates them calls protocol.SplitTheirs, and one that does
	// not may print Text as it is or sanitize the marks away.
	Text string
	// Quiet marks a status that changes nothing the user will hear: the
	// subscription made as asked, the producer's notes, terms that differ
	// only where it makes no difference to what is said (a cap on events
	// per second nobody asked for, where streamed output is cut), a
	// manifest unsigned, absent or verified. A program that keeps its start
	// quiet says these only when asked (its verbose mode, its terms).
	Quiet bool

	Reply *SentReply // KindReply

	// Err, on the End, is why the subscription ended in failure: a
	// *RejectedError, a *ManifestRefusedError, or the connection's error.
	Err error

	// queuedAs is whether the update was critical when its client queued
	// it (critNo, critYes), so that a batch is not asked again update by
	// update; critUnknown for an update no client queued.
	queuedAs critMark
}

// critMark is what a client found of an update's criticality.
type critMark uint8

const (
	critUnknown critMark = iota
	critNo
	critYes
)

// SentReply is a reply the client sent, or tried to send.
type SentReply struct {
	Prompt    session.Prompt // a copy, as it was when the reply was built
	Decision  string         // accept or reject; "" for a clarification's answer
	DecidedBy string         // the reply's decided_by; "" means the user
	Body      []byte         // the reply as built
	Signed    bool           // it went with a signature
	Err       error          // not delivered (a *SendError); nil when delivered
	// SettledElsewhere: the producer said another reply came first; the
	// engine told it as a delivery.
	SettledElsewhere bool
}
