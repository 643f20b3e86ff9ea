package protocol

import "encoding/json"

// Message types of the handshake and reply channel (spec chapters 5 and 6).
const (
	TypeSubscriptionRequest     = "subscription.request"
	TypeSubscriptionAccepted    = "subscription.accepted"
	TypeSubscriptionRejected    = "subscription.rejected"
	TypeSubscriptionRenegotiate = "subscription.renegotiate"
	TypeSubscriptionClose       = "subscription.close"
	TypeConfirmationReply       = "confirmation.reply"
	TypeClarificationReply      = "clarification.reply"
)

// Decisions of a confirmation.
const (
	DecisionAccept = "accept"
	DecisionReject = "reject"
)

// ConfirmationReply answers an agent.awaiting.confirmation event.
type ConfirmationReply struct {
	Type              string          `json:"type"` // always TypeConfirmationReply
	ReplyToken        string          `json:"reply_token"`
	Decision          string          `json:"decision"`
	SubscriptionID    string          `json:"subscription_id,omitempty"`
	Timestamp         string          `json:"timestamp"`
	DecidedBy         string          `json:"decided_by,omitempty"`
	DecisionRationale string          `json:"decision_rationale,omitempty"`
	ModifiedAction    json.RawMessage `json:"modified_action,omitempty"`
	CorrelationID     string          `json:"correlation_id,omitempty"`
}

// ClarificationReply answers an agent.awaiting.clarification event. Response
// holds a string, a bool or a float64.
type ClarificationReply struct {
	Type           string   `json:"type"` // always TypeClarificationReply
	ReplyToken     string   `json:"reply_token"`
	Response       any      `json:"response"`
	SubscriptionID string   `json:"subscription_id,omitempty"`
	Timestamp      string   `json:"timestamp"`
	DecidedBy      string   `json:"decided_by,omitempty"`
	Confidence     *float64 `json:"confidence,omitempty"`
	CorrelationID  string   `json:"correlation_id,omitempty"`
}

// Capabilities is what a subscriber asks for (subscription.request,
// subscription.renegotiate) or a producer honours (subscription.accepted).
// Extension capabilities, such as our "sigrpl", go in Extra.
type Capabilities struct {
	MaxEventsPerSecond         int                        `json:"max_events_per_second,omitempty"`
	PreferredVerbosity         string                     `json:"preferred_verbosity,omitempty"`
	Languages                  []string                   `json:"languages,omitempty"`
	SupportsConfirmationReply  *bool                      `json:"supports_confirmation_reply,omitempty"`
	SupportsClarificationReply *bool                      `json:"supports_clarification_reply,omitempty"`
	CoalesceBoundaries         []string                   `json:"coalesce_boundaries,omitempty"`
	EventFilters               *EventFilters              `json:"event_filters,omitempty"`
	SupportedConformanceLevels []int                      `json:"supported_conformance_levels,omitempty"`
	SupportedExtensions        []string                   `json:"supported_extensions,omitempty"`
	CognitiveLoad              string                     `json:"cognitive_load,omitempty"`
	PaceWPM                    int                        `json:"pace_wpm,omitempty"`
	AcceptSignedManifestsOnly  bool                       `json:"accept_signed_manifests_only,omitempty"`
	Extra                      map[string]json.RawMessage `json:"-"`
}

// EventFilters include or exclude event types by pattern.
type EventFilters struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// SubscriptionRequest opens a subscription (spec §5.2).
type SubscriptionRequest struct {
	Type                  string                     `json:"type"` // TypeSubscriptionRequest
	AAEPVersion           string                     `json:"aaep_version"`
	SubscriberID          string                     `json:"subscriber_id"`
	SubscriberName        string                     `json:"subscriber_name,omitempty"`
	SubscriberVersion     string                     `json:"subscriber_version,omitempty"`
	SubscriberManifestURI string                     `json:"subscriber_manifest_uri,omitempty"`
	CorrelationID         string                     `json:"correlation_id,omitempty"`
	Capabilities          Capabilities               `json:"capabilities"`
	Extensions            map[string]json.RawMessage `json:"extensions,omitempty"`
}

// ProducerInfo names the producer in a subscription.accepted message.
type ProducerInfo struct {
	AgentID      string `json:"agent_id"`
	AgentVersion string `json:"agent_version,omitempty"`
	AgentName    string `json:"agent_name,omitempty"`
	Model        string `json:"model,omitempty"`
	ManifestURI  string `json:"manifest_uri,omitempty"`
}

// SubscriptionAccepted grants a subscription or a renegotiation (spec §5.4).
type SubscriptionAccepted struct {
	Type                string                     `json:"type"` // TypeSubscriptionAccepted
	SubscriptionID      string                     `json:"subscription_id"`
	AAEPVersion         string                     `json:"aaep_version"`
	Producer            ProducerInfo               `json:"producer"`
	HonoredCapabilities Capabilities               `json:"honored_capabilities"`
	ManifestURI         string                     `json:"manifest_uri,omitempty"`
	SignedManifest      string                     `json:"signed_manifest,omitempty"`
	NegotiationNotes    string                     `json:"negotiation_notes,omitempty"`
	Extensions          map[string]json.RawMessage `json:"extensions,omitempty"`
}

// SubscriptionRejected refuses a subscription or renegotiation (spec §5.5).
type SubscriptionRejected struct {
	Type                   string `json:"type"` // TypeSubscriptionRejected
	ReasonCode             string `json:"reason_code"`
	ReasonMessage          string `json:"reason_message"`
	RetryAfterSeconds      *int   `json:"retry_after_seconds,omitempty"`
	AlternativeManifestURI string `json:"alternative_manifest_uri,omitempty"`
}

// SubscriptionRenegotiate changes some terms of a live subscription (spec §5.7).
type SubscriptionRenegotiate struct {
	Type           string       `json:"type"` // TypeSubscriptionRenegotiate
	SubscriptionID string       `json:"subscription_id"`
	Capabilities   Capabilities `json:"capabilities"`
}

// SubscriptionClose ends a subscription, from either side (spec §5.8).
type SubscriptionClose struct {
	Type           string `json:"type"` // TypeSubscriptionClose
	SubscriptionID string `json:"subscription_id"`
	ReasonCode     string `json:"reason_code,omitempty"`
	ReasonMessage  string `json:"reason_message,omitempty"`
}

// capabilityFields are the members Capabilities maps itself; others are Extra.
var capabilityFields = map[string]bool{
	"max_events_per_second": true, "preferred_verbosity": true, "languages": true,
	"supports_confirmation_reply": true, "supports_clarification_reply": true, "coalesce_boundaries": true,
	"event_filters": true, "supported_conformance_levels": true, "supported_extensions": true,
	"cognitive_load": true, "pace_wpm": true, "accept_signed_manifests_only": true,
}

// MarshalJSON writes the capabilities with the Extra members alongside.
func (c Capabilities) MarshalJSON() ([]byte, error) {
	type plain Capabilities
	b, err := json.Marshal(plain(c))
	if err != nil || len(c.Extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range c.Extra {
		if !capabilityFields[k] {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the capabilities, keeping unknown members in Extra.
func (c *Capabilities) UnmarshalJSON(b []byte) error {
	type plain Capabilities
	if err := json.Unmarshal(b, (*plain)(c)); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k, v := range m {
		if !capabilityFields[k] {
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = v
		}
	}
	return nil
}
