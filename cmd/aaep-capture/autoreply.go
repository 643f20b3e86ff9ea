// autoreply.go: --auto-reply reject: the one answer a recorder may give alone.

package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
)

// policyReply is the reply the gate g decides for msg, a received message,
// or nil when msg is no confirmation prompt that can still be answered or
// the gate leaves it unanswered; why says in words what was decided (empty
// for nil and no prompt). The gate is the one aaep-listen decides by
// (policy.Gate); aaep-capture only ever gives it --auto-reply reject.
func policyReply(g *policy.Gate, msg []byte, subscriptionID string, now time.Time) (reply []byte, why string) {
	if protocol.PeekType(msg) != protocol.TypeAwaitingConfirmation {
		return nil, ""
	}
	var p struct {
		ReplyToken     string    `json:"reply_token"`
		Timestamp      time.Time `json:"timestamp"`
		TimeoutSeconds int64     `json:"timeout_seconds"`
		Action         string    `json:"action"`
		SessionID      string    `json:"session_id"`
		Tool           string    `json:"tool"`
		RiskLevel      string    `json:"risk_level"`
		Irreversible   *bool     `json:"irreversible"`
		Reversibility  string    `json:"reversibility"`
		Producer       struct {
			AgentID string `json:"agent_id"`
		} `json:"producer"`
	}
	if err := json.Unmarshal(msg, &p); err != nil || p.ReplyToken == "" {
		return nil, "A confirmation prompt without a reply token cannot be answered; it is recorded as it came."
	}
	action := protocol.Sanitize(p.Action)
	if p.TimeoutSeconds > 0 && !p.Timestamp.IsZero() && now.After(p.Timestamp.Add(time.Duration(p.TimeoutSeconds)*time.Second)) {
		return nil, fmt.Sprintf("A confirmation prompt had already expired and was not answered: %s", action)
	}
	ev := protocol.Event{Type: protocol.TypeAwaitingConfirmation, SessionID: p.SessionID, Tool: p.Tool,
		RiskLevel: p.RiskLevel, Irreversible: p.Irreversible, Reversibility: p.Reversibility,
		Producer: protocol.Producer{AgentID: p.Producer.AgentID}}
	if g.Decide(policy.FactsOf(&ev, "")).Verdict != policy.Reject {
		return nil, "" // the recorder decides nothing else: the prompt is recorded, never answered
	}
	r := protocol.ConfirmationReply{
		Type:              protocol.TypeConfirmationReply,
		ReplyToken:        p.ReplyToken,
		Decision:          protocol.DecisionReject,
		SubscriptionID:    subscriptionID,
		Timestamp:         now.UTC().Format(time.RFC3339Nano),
		DecidedBy:         "policy:aaep-capture-auto-reply",
		DecisionRationale: "The recorder's --auto-reply reject policy refuses every confirmation.",
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, "" // a struct of strings always marshals
	}
	return b, "Your --auto-reply policy rejected: " + action
}

// subscriptionID returns the subscription_id of a subscription.accepted
// message, or "".
func subscriptionID(msg []byte) string {
	if protocol.PeekType(msg) != protocol.TypeSubscriptionAccepted {
		return ""
	}
	var m struct {
		ID string `json:"subscription_id"`
	}
	_ = json.Unmarshal(msg, &m) // "" when unreadable
	return m.ID
}
