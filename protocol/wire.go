// wire.go: the names and numbers both ends of a binding must agree on —
// the protocol version, the HTTP paths, the WebSocket subprotocol and the
// close codes — kept here, the lowest package, so the producer, the
// transports, the engine and the capture format share one copy.

package protocol

// Version is the AAEP version this module speaks: what a subscriber asks
// for in a subscription request and what the producer answers with.
const Version = "1.0.0"

// HTTP paths of the SSE binding (appendix B.1), relative to a producer's
// base URL.
const (
	// PathSubscriptions takes a POSTed subscription.request (spec layout).
	PathSubscriptions = "/aaep/v1/subscriptions"
	// PathEvents is the event stream a subscription.accepted names (spec
	// layout).
	PathEvents = "/aaep/v1/events"
	// PathReplies takes POSTed replies (spec layout).
	PathReplies = "/aaep/v1/replies"
	// PathLegacyEvents is the stream of the deployed layout: GET, no
	// handshake.
	PathLegacyEvents = "/events"
	// PathLegacyReplies takes POSTed replies in the deployed layout.
	PathLegacyReplies = "/messages"
	// PathManifest is where a producer's HTTP origin serves its manifest
	// (spec §5.10.2), found there when it names no manifest_uri.
	PathManifest = "/.well-known/aaep-manifest.json"
	// PathWebSocket is where a producer serves the WebSocket binding
	// (appendix B.2) when the endpoint names no path.
	PathWebSocket = "/aaep/v1/ws"
)

// Subprotocol is the WebSocket subprotocol of AAEP v1.
const Subprotocol = "aaep.v1"

// Close codes of the message bindings. The WebSocket binding sends them in
// its close frame; the Unix socket, stdio and gRPC bindings use the same
// numbers for why a subscription ended.
const (
	// Standard WebSocket codes (RFC 6455 §7.4.1).
	CloseNormal      = 1000
	CloseGoingAway   = 1001 // the producer is shutting down or restarting
	CloseProtocol    = 1002
	CloseUnsupported = 1003
	CloseNoStatus    = 1005
	CloseAbnormal    = 1006
	CloseBadData     = 1007
	ClosePolicy      = 1008
	CloseTooBig      = 1009
	CloseInternal    = 1011
	CloseRestart     = 1012
	CloseTryLater    = 1013

	// AAEP's own codes (appendix B.2.6).
	CloseSubscriptionEnded = 4000 // the subscription was closed cleanly
	CloseRejected          = 4001 // the subscription or a renegotiation was refused
	CloseAuthFailed        = 4002 // authentication failed
	CloseDenied            = 4003 // authorization was denied
	CloseViolation         = 4004 // the producer ended the subscription for a violation
	CloseBySubscriber      = 4005 // the subscriber ended the subscription
)

// CriticalType reports whether events of type typ are critical by nature:
// an error ending a session, a confirmation or clarification awaiting the
// user, a handoff (section 4 says they MUST be sent with urgency
// critical). Such events are never filtered, rate limited, held back or
// dropped. typ may be in the compact or the full URL form.
func CriticalType(typ string) bool {
	switch NormalizeType(typ) {
	case TypeSessionErrored, TypeAwaitingConfirmation, TypeAwaitingClarify, TypeHandoffRequested:
		return true
	}
	return false
}
