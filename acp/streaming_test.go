package acp_test

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/protocol"
)

// An agent that goes on talking and thinking while its permission request
// waits has not withdrawn it: the prompt stays answerable, and the user's
// accept reaches the agent. Only a reply, the prompt's timeout, the agent
// leaving awaiting_input, or the session's end settle a prompt.
func TestStreamingWhileAskingKeepsThePrompt(t *testing.T) {
	t.Parallel()
	r := start(t, "streams", acp.Options{Task: "write the proof file"})
	n := r.prompt(t)
	r.waitFor(t, "streamed on", func(string) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, ev := range r.events {
			if strings.Contains(ev.Chunk.String(), "I keep looking around.") {
				return true
			}
		}
		return false
	})
	if strings.Contains(r.text(), "withdrawn") {
		t.Fatalf("the prompt was said withdrawn while the agent talked:\n%s", r.text())
	}
	if err := r.c.Confirm(acptest.Context(t), n, protocol.DecisionAccept); err != nil {
		t.Fatalf("accept after the agent talked on: %v\n%s", err, r.text())
	}
	r.waitText(t, "code is done and waiting for you.")
	if out, _ := r.file(acptest.OutcomeFile); !strings.Contains(out, `"optionId":"yes"`) {
		t.Errorf("outcome %q, want the allow_once option", out)
	}
	if _, ok := r.file(acptest.ProofFile); !ok {
		t.Errorf("no proof file after accept:\n%s", r.text())
	}
	r.checkValid(t)
}
