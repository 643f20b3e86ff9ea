package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/policy"
)

// --auto-reply reject decides through the gate aaep-listen uses: every
// confirmation that can still be answered is rejected, whatever it says of
// itself, and nothing else is answered; without the flag nothing is.
func TestPolicyReplyThroughGate(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	confirm := `{"type":"aaep:agent.awaiting.confirmation","session_id":"s","producer":{"agent_id":"a"},
	  "reply_token":"rpl_1","timestamp":"2026-11-23T12:00:00Z","timeout_seconds":60,"action":"Pay.",
	  "tool":"pay","risk_level":"high","irreversible":false,"reversibility":"irreversible"}`
	question := `{"type":"aaep:agent.awaiting.clarification","reply_token":"rpl_2","question":"Which?"}`
	for _, tc := range []struct {
		name      string
		on        bool
		msg       string
		wantReply bool
	}{
		{"confirmation rejected", true, confirm, true},
		{"question left", true, question, false},
		{"off: nothing answered", false, confirm, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply, why := policyReply(policy.NewGate(nil, tc.on), []byte(tc.msg), "sub_1", now)
			if (reply != nil) != tc.wantReply {
				t.Fatalf("reply %s (%s), want one: %v", reply, why, tc.wantReply)
			}
			if reply == nil {
				return
			}
			var r struct{ Decision string }
			_ = json.Unmarshal(reply, &r)
			if r.Decision != "reject" || why == "" {
				t.Errorf("reply %s, why %q", reply, why)
			}
		})
	}
}
