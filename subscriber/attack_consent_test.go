package subscriber_test

// attack_consent_test.go: nothing is answered that the user did not answer.
// A client over a recording (as aaep-replay play runs it: no gate, no one
// typing) sends no reply, whatever the recording re-offers.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

func TestRecordingIsNeverAnswered(t *testing.T) {
	var b strings.Builder
	put := func(m map[string]any) {
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteByte('\n')
	}
	accepted := map[string]any{"type": protocol.TypeSubscriptionAccepted, "subscription_id": "sub_1", "aaep_version": "1.0.0",
		"producer":             map[string]any{"agent_id": "bank"},
		"honored_capabilities": map[string]any{"supports_confirmation_reply": true, "supports_clarification_reply": true}}
	put(accepted)
	prompt := func(id string, seq int, typ string) {
		m := map[string]any{"@context": "https://aaep-protocol.org/context/v1", "timestamp": "2026-06-30T14:22:10.100Z",
			"producer": map[string]any{"agent_id": "bank"}, "session_id": "sess_1", "event_id": id, "sequence_number": seq,
			"type": typ, "urgency": "critical", "reply_token": "rpl_1", "timeout_seconds": 120, "default_decision": "reject",
			"action": "pay", "consequence": "money goes", "risk_level": "low", "irreversible": false,
			"allowed_replies": []string{"accept", "reject"}, "question": "which?", "response_type": "free_text"}
		put(m)
	}
	put(map[string]any{"@context": "https://aaep-protocol.org/context/v1", "timestamp": "2026-06-30T14:22:10.000Z",
		"producer": map[string]any{"agent_id": "bank"}, "session_id": "sess_1", "event_id": "evt_0", "sequence_number": 0,
		"type": protocol.TypeSessionStarted, "summary_normal": "started"})
	prompt("evt_1", 1, protocol.TypeAwaitingConfirmation)
	prompt("evt_1", 1, protocol.TypeAwaitingConfirmation) // the same event again
	put(accepted)                                         // a renegotiation's answer
	prompt("evt_2", 2, protocol.TypeAwaitingConfirmation) // the settled token, offered again
	prompt("evt_3", 3, "aaep:agent.awaiting.clarification")

	var mu sync.Mutex
	var sent []string
	ctx := context.Background()
	conn := transport.NewNDJSONConn(strings.NewReader(b.String()), transport.FileOptions{})
	c := subscriber.New(ctx, conn, "file:recording.jsonl", subscriber.Config{
		Terms: session.Terms{CanConfirm: true, CanClarify: true},
		Now:   func() time.Time { return time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC) },
		Tap: func(dir subscriber.Direction, data []byte, _ time.Time) {
			if dir == subscriber.Sent {
				mu.Lock()
				sent = append(sent, string(data))
				mu.Unlock()
			}
		},
	})
	offered := 0
	eachUpdate(t, c, func(u subscriber.Update) {
		if u.Kind == subscriber.KindReply {
			t.Errorf("a reply nobody gave: %+v", u.Reply)
		}
		if u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusDecision {
			t.Errorf("a decision nobody made: %s", u.Text)
		}
		if u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Kind == session.KindEvent {
			offered++
		}
	})
	if offered == 0 {
		t.Fatal("no prompt was offered: the test proves nothing")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range sent {
		if strings.Contains(s, protocol.TypeConfirmationReply) || strings.Contains(s, protocol.TypeClarificationReply) {
			t.Errorf("the client sent a reply over a recording: %s", s)
		}
	}
}
