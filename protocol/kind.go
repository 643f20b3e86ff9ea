package protocol

import "fmt"

// Kind is what a message is, decided by its type alone. KindOf is the one
// place that maps a message type to its kind; the decoder and the full
// schema validator both choose a message's schema through it, so they can
// never judge one message by different schemas.
type Kind int

// Kinds of message.
const (
	KindEvent     Kind = iota // an event: a core "aaep:" type, an extension type, or no known type
	KindHandshake             // subscription.request, .accepted, .rejected, .renegotiate, .close (spec chapter 5)
	KindReply                 // confirmation.reply, clarification.reply (spec chapter 6)
	KindTask                  // agtask:task, agtask:cancel, agtask:refused (aaep-term's agent-tasks extension)
)

func (k Kind) String() string {
	switch k {
	case KindEvent:
		return "event"
	case KindHandshake:
		return "handshake message"
	case KindReply:
		return "reply"
	case KindTask:
		return "agent-tasks message"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// KindOf returns the kind of a message by its normalized type (see
// PeekType and NormalizeType). Any type that is not a handshake, reply or
// agent-tasks message is an event's, judged by the envelope when it has no
// schema of its own.
func KindOf(typ string) Kind {
	switch typ {
	case TypeSubscriptionRequest, TypeSubscriptionAccepted, TypeSubscriptionRejected,
		TypeSubscriptionRenegotiate, TypeSubscriptionClose:
		return KindHandshake
	case TypeConfirmationReply, TypeClarificationReply:
		return KindReply
	case TypeTask, TypeTaskCancel, TypeTaskRefused:
		return KindTask
	}
	return KindEvent
}

// NotEventError is what [Decoder.Decode] returns, with no event, for a
// handshake or reply message: its type says it is not an event, so it is
// never decoded, validated or announced as one.
type NotEventError struct {
	Type string // the normalized type; "subscription.close", …
	Kind Kind   // KindHandshake, KindReply or KindTask
}

func (e *NotEventError) Error() string {
	return fmt.Sprintf("protocol: a %s (%s) is not an event", e.Kind, e.Type)
}
