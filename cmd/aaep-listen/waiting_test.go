package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// With several prompts waiting, an answer that names none says which
// prompts wait, each with its agent and the word that answers it, and its
// example uses a word that fits a prompt waiting (it said "for example:
// answer 1" of a confirmation before).
func TestSayWhichNamesAFittingExample(t *testing.T) {
	t.Parallel()
	r := newMultiRig(t, "bank=http://127.0.0.1:1", "shop=http://127.0.0.1:2")
	now := time.Unix(1700000000, 0)
	r.handle(0, payPrompt(now, "p1", "bank", "tok_p1"))
	r.handle(1, &protocol.Event{Type: protocol.TypeAwaitingClarify, EventID: "q2", SessionID: "s", Producer: protocol.Producer{AgentID: "shop"},
		Urgency: protocol.UrgencyCritical, Question: "Which colour?", ReplyToken: "tok_q", TimeoutSeconds: 60, Timestamp: now})
	r.clock.add(subscriber.Settle)
	for _, tc := range []struct{ typed, example string }{
		{"blue", "for example: answer 2; nothing was sent."},
		{"answer blue", "for example: answer 2; nothing was sent."},
		{"accept", "for example: accept 1; nothing was sent."},
		{"yes", "for example: yes 1; nothing was sent."},
	} {
		before := r.out.Len()
		r.command(tc.typed)
		said := r.out.String()[before:]
		if !strings.Contains(said, "2 prompts are waiting; say which, "+tc.example) {
			t.Errorf("%q: %s", tc.typed, said)
		}
		for _, want := range []string{"prompt 1 from bank", "type accept 1, or reject 1", "prompt 2 from shop", "type answer 2 and your answer"} {
			if !strings.Contains(said, want) {
				t.Errorf("%q: lacks %q: %s", tc.typed, want, said)
			}
		}
	}
	if n := r.conns[0].count() + r.conns[1].count(); n != 0 {
		t.Errorf("%d messages sent", n)
	}
}
