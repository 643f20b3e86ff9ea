package acp

import (
	"encoding/json"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// testBridge is a bridge in a session, as after start, without an agent.
func testBridge() *Bridge {
	b := New(Options{Name: "code"})
	b.name, b.session = "code", "s1"
	b.aaep = aaepSession{open: true, id: "sess_fuzz"}
	return b
}

// Whatever an agent sends as a session update or a permission request,
// the bridge neither panics nor writes an event our schemas refuse.
func FuzzUpdate(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`,
		`{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run","kind":"execute","status":"completed","rawInput":{"command":["ls","-l"]},"locations":[{"path":"a","line":3}]}}`,
		`{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t9","status":"failed","title":""}}`,
		`{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"","status":"completed"},{"content":"b","status":"pending"}]}}`,
		`{"sessionId":"s1","update":{"sessionUpdate":"current_mode_update","currentModeId":"bypassPermissions"}}`,
		`{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":7}}`,
		`{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"Edit","kind":"edit","content":[{"type":"diff","path":"x","oldText":null,"newText":"a\nb"}]},"options":[{"optionId":"a","name":"A","kind":"allow_once"}]}`,
		`{"sessionId":"s1","toolCall":{"title":"\u001b[2J","content":[{"type":"content","content":{"type":"text","text":"t"}}]},"options":[]}`,
	} {
		f.Add([]byte(s))
	}
	schemas, err := protocol.NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		b := testBridge()
		var msgs [][]byte
		if _, u, ok := decodeUpdate(params); ok && knownUpdates[u.Kind] {
			msgs = b.mapUpdate(u)
		}
		var req permissionRequest
		if json.Unmarshal(params, &req) == nil {
			tc := req.ToolCall
			msgs = append(msgs, b.event(protocol.TypeAwaitingConfirmation, protocol.UrgencyCritical, map[string]any{
				"action": nonEmpty(tc.Title, "a tool call"), "consequence": consequence(tc), "summary_normal": "asks",
				"reply_token": "rpl_x", "timeout_seconds": b.window(), "default_decision": "reject",
				"risk_level": "high", "irreversible": true, "extra_context": map[string]any{"agent_options": optionWords(req.Options)},
			}))
		}
		b.turn = &turn{task: "t"}
		b.endTurn(b.turn, json.RawMessage(`{"stopReason":"end_turn"}`), nil)
		for {
			b.q.mu.Lock()
			n := len(b.q.msgs)
			b.q.mu.Unlock()
			if n == 0 {
				break
			}
			m, _ := b.q.pop(nil)
			msgs = append(msgs, m)
		}
		for _, m := range msgs {
			if err := schemas.Check(m); err != nil {
				t.Fatalf("invalid event %s: %v", m, err)
			}
		}
	})
}
