// backend.go holds the Backend contract, utterances and the urgency → priority mapping.

package speech

import (
	"context"

	"github.com/aaep-term/aaep-term/announce"
)

// Priority is an SSIP message priority.
type Priority string

// SSIP priorities, as speech-dispatcher names them.
const (
	Important    Priority = "important"
	Message      Priority = "message"
	Text         Priority = "text"
	Notification Priority = "notification"
	Progress     Priority = "progress"
)

// Utterance is one thing to say.
type Utterance struct {
	Text     string
	Lang     string // BCP 47 tag, "" for the voice's default
	Priority Priority
	// Keep marks what must be heard whole (the agent's output, a prompt,
	// an error, an end): an important utterance that cuts it has it said
	// again after, where the daemon would drop it. Chatter is not kept.
	Keep bool
}

// Backend speaks utterances. Speak must not wait for the speech to end; an
// Important utterance interrupts whatever is being said. Implementations must
// be safe for concurrent use.
type Backend interface {
	Speak(ctx context.Context, u Utterance) error
	// Cancel stops what is being said and drops what is queued.
	Cancel(ctx context.Context) error
	Close() error
	// Name is a short word for the user: "speech-dispatcher", "espeak-ng", …
	Name() string
}

// PriorityFor maps an announcement to an SSIP priority: critical is important,
// normal announcements, the agent's output among them, are messages (queued,
// never replaced by a newer one), background progress is
// progress and other background announcements are notifications.
func PriorityFor(an announce.Announcement) Priority {
	switch {
	case an.Priority >= announce.Critical:
		return Important
	case an.Priority == announce.Background && an.Kind == "progress":
		return Progress
	case an.Priority == announce.Background:
		return Notification
	}
	return Message
}
