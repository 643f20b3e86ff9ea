package subscriber

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// What a client remembers of the prompts it handed out stays bounded
// however many come and go: a settled prompt is forgotten once maxShownSettled
// later ones have settled, while a prompt still waiting is kept. A run of
// 5,000 prompts, each settled by its session's end, leaves at most the
// prompts waiting and the last settled ones.
func TestShownBounded(t *testing.T) {
	t.Parallel()
	const prompts = 5000
	var b strings.Builder
	put := func(m map[string]any) {
		m["@context"] = "https://aaep-protocol.org/context/v1"
		m["timestamp"] = "2026-06-30T14:22:10.000Z"
		m["producer"] = map[string]any{"agent_id": "bank"}
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteByte('\n')
	}
	waiting := map[string]any{"session_id": "sess_w", "event_id": "evt_w", "sequence_number": 0,
		"type": protocol.TypeAwaitingConfirmation, "urgency": "critical", "reply_token": "rpl_w", "timeout_seconds": 3600,
		"default_decision": "reject", "action": "pay", "consequence": "money goes", "risk_level": "low", "irreversible": false}
	put(waiting)
	for i := range prompts {
		s := "sess_" + strconv.Itoa(i)
		put(map[string]any{"session_id": s, "event_id": "evt_p" + strconv.Itoa(i), "sequence_number": 0,
			"type": protocol.TypeAwaitingConfirmation, "urgency": "critical", "reply_token": "rpl_" + strconv.Itoa(i), "timeout_seconds": 3600,
			"default_decision": "reject", "action": "pay", "consequence": "money goes", "risk_level": "low", "irreversible": false})
		put(map[string]any{"session_id": s, "event_id": "evt_c" + strconv.Itoa(i), "sequence_number": 1,
			"type": protocol.TypeSessionCancelled, "cancelled_by": "producer", "summary_normal": "off"})
	}
	conn := transport.NewNDJSONConn(strings.NewReader(b.String()), transport.FileOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := New(ctx, conn, "file:prompts.jsonl", Config{
		Terms: session.Terms{CanConfirm: true},
		Now:   func() time.Time { return time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC) },
	})
	defer c.Close()
	most, offered := 0, 0
	for {
		u, err := c.Next(ctx)
		if err != nil {
			break
		}
		if u.Kind == KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Kind == session.KindEvent {
			offered++
		}
		c.mu.Lock()
		most = max(most, len(c.shown))
		c.mu.Unlock()
	}
	if offered != prompts+1 {
		t.Fatalf("%d prompts offered, want %d", offered, prompts+1)
	}
	if limit := maxShownSettled + 2; most > limit {
		t.Errorf("the client remembered %d prompts handed out at once, want at most %d", most, limit)
	}
	c.mu.Lock()
	_, kept := c.shown[1]
	c.mu.Unlock()
	if !kept {
		t.Error("the prompt still waiting was forgotten")
	}
}
