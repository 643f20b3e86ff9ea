package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// Two prompts with one reply token, in one burst of frames or one after
// the other: nothing is sent, all are told in arrival order (the same lines
// either way), the critical line comes once, and "accept N" on either says
// why it cannot be answered. (With --auto-reply, the first would rightly be
// answered as it is told, before the second arrives, in a burst or not.)
func TestReusedTokenNothingSent(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	confirm := func(id, agent string) *protocol.Event { return payPrompt(now, id, agent, "rpl_same") }
	var lines [2]string
	for i, burst := range []bool{false, true} {
		t.Run(fmt.Sprint("burst ", burst), func(t *testing.T) {
			l, out, conn := testListener(t, now, false)
			if burst {
				l.handle(confirm("evt_1", "a"), confirm("evt_2", "b"), confirm("evt_3", "b"))
			} else {
				l.handle(confirm("evt_1", "a"))
				l.handle(confirm("evt_2", "b"))
				l.handle(confirm("evt_3", "b"))
			}
			l.command(t.Context(), "accept 1")
			l.command(t.Context(), "reject 2")
			if len(conn.sent) != 0 {
				t.Fatalf("sent %q", conn.sent)
			}
			text := strings.Join(out.lines, "\n")
			order := []string{
				"Confirmation needed, prompt 1: Pay evt_1.",
				"Prompt 2 carries the same reply token as prompt 1",
				"Safety warning: Agent a and Agent b are reusing reply tokens: prompts 1 and 2 carry the same one",
				"Prompt 3 carries the same reply token as prompt 2",
				"Prompt 1 carries the same reply token as prompt 2, so the agent could not tell",
				"Prompt 2 carries the same reply token as prompt 1, so the agent could not tell",
			}
			if w := inOrder(text, order); w != "" {
				t.Fatalf("output lacks %q, or has it out of order:\n%s", w, text)
			}
			if n := strings.Count(text, "reusing reply tokens"); n != 1 {
				t.Errorf("told %d times that the producer reuses tokens:\n%s", n, text)
			}
			if strings.Contains(text, "type: accept 2") || strings.Contains(text, "type: accept 3") {
				t.Errorf("a prompt with a shared token was offered:\n%s", text)
			}
			lines[i] = text
		})
	}
	if lines[0] != lines[1] {
		t.Errorf("one burst gives other lines than one frame at a time:\n%s\n\none at a time:\n%s", lines[1], lines[0])
	}
}
