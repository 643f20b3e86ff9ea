package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// An empty line never answers: not a confirmation, not a question, even
// one with a default and alone in waiting (an Enter pressed by accident).
// With exactly one prompt waiting it says that nothing was sent and how to
// answer, naming a question's default; the prompt still waits.
func TestEmptyLineAnswersNothing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	question := func() *protocol.Event {
		return &protocol.Event{Type: protocol.TypeAwaitingClarify, EventID: "evt_q", SessionID: "sess_q",
			Producer: protocol.Producer{AgentID: "a"}, Urgency: protocol.UrgencyCritical, Question: "Which time?",
			ReplyToken: "rpl_q", TimeoutSeconds: 60, DefaultResponse: "8 pm", HasDefaultResponse: true, Timestamp: now}
	}
	for _, tc := range []struct {
		name    string
		prompts []*protocol.Event
		said    string // "" when the empty line says nothing
	}{
		{"one confirmation", []*protocol.Event{payPrompt(now, "evt_p", "a", "rpl_p")},
			"An empty line answers nothing; nothing was sent. To answer prompt 1, type: accept 1, or: reject 1."},
		{"one question with a default", []*protocol.Event{question()},
			"An empty line answers nothing; nothing was sent. Type an answer for prompt 1; if you give none, the agent uses its default: 8 pm."},
		{"two prompts", []*protocol.Event{payPrompt(now, "evt_p", "a", "rpl_p"), question()}, ""},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, out, conn := testListener(t, now, false)
			for _, p := range tc.prompts {
				l.handle(p)
			}
			before := len(out.lines)
			for _, s := range []string{"", "   ", "\t"} {
				l.command(context.Background(), s)
			}
			if len(conn.sent) != 0 {
				t.Fatalf("an empty line sent %d replies: %s", len(conn.sent), conn.sent)
			}
			if got := len(l.c.Pending()); got != len(tc.prompts) {
				t.Errorf("%d prompts wait after the empty lines, want %d", got, len(tc.prompts))
			}
			said := out.lines[before:]
			if tc.said == "" {
				if len(said) != 0 {
					t.Errorf("said %q, want nothing", said)
				}
				return
			}
			if len(said) != 3 || said[0] != tc.said {
				t.Errorf("said:\n%s\nwant three times:\n%s", strings.Join(said, "\n"), tc.said)
			}
		})
	}
}
