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
