package subscriber

import (
	"errors"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// ErrClosed is returned by the client's methods once it has ended.
var ErrClosed = errors.New("subscriber: the client has ended")

// ErrUnknownPrompt is matched (errors.Is) by a *PromptError about a prompt
// number nothing was offered under.
var ErrUnknownPrompt = errors.New("subscriber: no such prompt")

// ErrSettled is matched (errors.Is) by a *PromptError about a prompt that
// was answered, expired, withdrawn or left already.
var ErrSettled = errors.New("subscriber: the prompt is settled")

// PromptError says why a prompt cannot be answered. Error is a sentence
// that can be read to a person.
type PromptError struct {
	Prompt int    // the prompt's number, as the caller gave it
	Reason error  // ErrUnknownPrompt, ErrSettled, or the engine's refusal
	Words  string // the sentence Error returns, sanitized
}

// Error returns Words.
func (e *PromptError) Error() string { return e.Words }

// Unwrap returns the reason.
func (e *PromptError) Unwrap() error { return e.Reason }

// SendError is a reply that could not be delivered; the prompt is still
// waiting and may be answered again.
type SendError struct {
	Prompt int   // the prompt's number
	Err    error // the transport's error
}

// Error says which prompt's answer was not delivered, and why.
func (e *SendError) Error() string {
	return fmt.Sprintf("could not send the answer to prompt %d: %v", e.Prompt, e.Err)
}

// Unwrap returns the transport's error.
func (e *SendError) Unwrap() error { return e.Err }

// RejectedError is the producer refusing the subscription (or a
// renegotiation, which ends the subscription).
type RejectedError struct {
	Code       string        // reason_code, untrusted: sanitize before printing
	Message    string        // reason_message, untrusted
	RetryAfter time.Duration // 0 when the producer named no time
	// Renegotiation is set when the producer refused new terms of a
	// subscription it had accepted, which ended it.
	Renegotiation bool
}

// Error names the reason code, sanitized, so the error may be printed;
// RejectionWords(e.Code) says what the code means.
func (e *RejectedError) Error() string {
	if e.Code == "" {
		return "subscriber: the producer refused the subscription"
	}
	return "subscriber: the producer refused the subscription (reason code \"" + protocol.Name(e.Code) + "\")"
}

// ManifestRefusedError ends a subscription whose manifest did not verify
// while Config.Manifest.Require was set.
type ManifestRefusedError struct {
	Result error // the check's error, often a *manifest.Error
}

// Error says that the manifest did not verify, and why.
func (e *ManifestRefusedError) Error() string {
	return fmt.Sprintf("subscriber: the producer's manifest did not verify: %v", e.Result)
}

// Unwrap returns the check's error.
func (e *ManifestRefusedError) Unwrap() error { return e.Result }
