package main

import (
	"encoding/json"
	"github.com/aaep-term/aaep-term/internal/prose"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// version is this build's version, sent in subscription requests.
const version = "0.1.0"

// subscriptionRequest is the body of the subscription request: who we
// are and the terms the flags ask for (session.Terms), with the
// signed-replies offer when there is a key.
func subscriptionRequest(o *options) []byte {
	// Strings, numbers and slices of them always marshal.
	b, _ := json.Marshal(session.Request(session.Identity{ID: o.SubscriberID, Name: "aaep-listen", Version: version}, o.Terms))
	var req map[string]any
	_ = json.Unmarshal(b, &req) // what was just marshalled reads back
	addOffer(req, o)
	addManifestRequest(req, o)
	b, _ = json.Marshal(req) // a map of plain values always marshals
	return b
}

// accepted reports the producer's acceptance and adopts its subscription ID.
func (l *listener) accepted(b []byte, now time.Time) {
	if l.neg.pending != nil { // the answer to a renegotiation
		l.adopt(b, now)
		return
	}
	l.o.refused = false
	var m struct {
		SubscriptionID string `json:"subscription_id"`
		Producer       struct {
			AgentID   string `json:"agent_id"`
			AgentName string `json:"agent_name"`
		} `json:"producer"`
		Notes   string         `json:"negotiation_notes"`
		Honored map[string]any `json:"honored_capabilities"`
	}
	if err := json.Unmarshal(b, &m); err != nil || !strings.HasPrefix(m.SubscriptionID, "sub_") {
		l.say("The producer's acceptance of the subscription could not be read; going on without a subscription ID.")
		return
	}
	l.o.sigAccepted(m.Honored)
	l.eng.SetSubscriptionID(m.SubscriptionID)
	name := m.Producer.AgentName
	if name == "" {
		name = m.Producer.AgentID
	}
	l.say(prose.Join("Subscribed to "+protocol.Theirs(protocol.Sanitize(name)), l.notesWords(m.Notes)))
	l.adopt(b, now)
	l.manifestAccepted(b)
}

// rejected explains why the producer refused the subscription.
func (l *listener) rejected(b []byte, now time.Time) {
	var m struct {
		Code       string `json:"reason_code"`
		Message    string `json:"reason_message"`
		RetryAfter *int   `json:"retry_after_seconds"`
	}
	_ = json.Unmarshal(b, &m) // an unreadable rejection is still a rejection
	if l.refusedRenegotiation(m.Code, m.Message) {
		return
	}
	msg := "The producer refused the subscription: " + rejectionWords(m.Code)
	if m.Message != "" {
		msg += " " + prose.Stop("It says: "+protocol.Theirs(protocol.Sanitize(m.Message)))
	}
	if m.RetryAfter != nil {
		msg += " It asks to be tried again in " + seconds(time.Duration(*m.RetryAfter)*time.Second) + "."
	}
	l.say(msg)
	l.o.refused = true // until a retry is accepted
	l.rejectionShown() // retry.go: the countdown may begin
}

// closedByProducer handles a subscription.close from the producer: it
// ended the subscription (spec §5.8), so nothing more will come. The run
// ends, with one line saying so and the producer's reason, if it gave one.
// No subscription.close is sent back: there is no subscription left.
func (l *listener) closedByProducer(b []byte) {
	var m protocol.SubscriptionClose
	_ = json.Unmarshal(b, &m) // an unreadable close still closes
	msg := "The producer ended the subscription"
	if m.ReasonCode != "" {
		msg += " (reason: " + protocol.Sanitize(m.ReasonCode) + ")"
	}
	msg += "."
	if m.ReasonMessage != "" {
		msg += " " + prose.Stop("It says: "+protocol.Theirs(protocol.Sanitize(m.ReasonMessage)))
	}
	l.neg.subID, l.neg.closed = "", true // the producer knows: it applies the defaults
	if l.neg.end == "" {
		l.neg.end = msg
	}
}

func rejectionWords(code string) string {
	switch code {
	case "version_unsupported":
		return "it does not speak this version of AAEP."
	case "manifest_signature_required":
		// The subscriber asked for it (--require-signed-manifest): the
		// producer has none to give.
		return "this subscription requires a signed manifest, and the producer has none."
	case "capabilities_incompatible":
		return "it cannot meet the requested capabilities."
	case "rate_limit":
		return "too many subscriptions; try again later."
	case "authentication_required":
		return "it needs proof of who you are: a token (--token), or a signed-replies key it accepts (see aaep-listen key; do not use --no-sign)."
	case "authorization_denied":
		return "you are not allowed to subscribe: your token, or your signed-replies key, is not one it accepts (aaep-listen key shows the key's thumbprint to give its operator)."
	case "transport_unavailable":
		return "this transport is not available."
	}
	return "no reason given that we know (" + protocol.Sanitize(code) + ")."
}

func statusWords(endpoint string, s transport.Status, detail string) string {
	var msg string
	switch s {
	case transport.StatusConnecting:
		msg = "Connecting to " + endpoint + "."
	case transport.StatusConnected:
		msg = "Connected to " + endpoint + "."
	case transport.StatusReconnecting:
		msg = "Connection lost; reconnecting."
	case transport.StatusClosed:
		msg = "Connection closed."
	}
	if detail != "" {
		msg += " " + protocol.Sanitize(detail)
	}
	return msg
}

func layout(s string) transport.Layout {
	switch s {
	case "spec":
		return transport.LayoutSpec
	case "legacy":
		return transport.LayoutLegacy
	}
	return transport.LayoutAuto
}
