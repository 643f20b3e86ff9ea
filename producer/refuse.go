package producer

import "net/http"

// ReasonCodes are the subscription.rejected reason codes of the spec.
var ReasonCodes = []string{"version_unsupported", "manifest_signature_required", "capabilities_incompatible",
	"rate_limit", "authentication_required", "authorization_denied", "transport_unavailable", "unknown"}

// Refusal makes a producer reject subscription requests with a reason of
// the test's choosing, so every reason code, and retry_after_seconds, can
// be shown to a subscriber.
type Refusal struct {
	// Code is the reason_code; any string, so subscribers can be shown
	// codes no spec knows.
	Code string
	// Message is the reason_message; empty means a sentence naming Code.
	Message string
	// RetryAfter, if not negative, is sent as retry_after_seconds.
	RetryAfter int
	// Times is how many requests are refused before the producer accepts
	// again; 0 refuses every one.
	Times int

	refused int // guarded by the producer's mu
}

// refusal is the rejection Options.Refuse calls for on this request, or nil.
func (p *Producer) refusal() *Rejection {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.opts.Refuse
	if r == nil || r.Times > 0 && r.refused >= r.Times {
		return nil
	}
	r.refused++
	msg := r.Message
	if msg == "" {
		msg = "refused for the test: " + r.Code
	}
	status := http.StatusBadRequest
	switch r.Code {
	case "rate_limit":
		status = http.StatusTooManyRequests
	case "authentication_required":
		status = http.StatusUnauthorized
	case "authorization_denied":
		status = http.StatusForbidden
	}
	rej := &Rejection{status: status, code: r.Code, text: msg}
	if r.RetryAfter >= 0 {
		n := r.RetryAfter
		rej.retry = &n
	}
	return rej
}
