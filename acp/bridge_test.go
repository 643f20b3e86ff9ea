package acp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/acp/internal/acptest"
	"github.com/aaep-term/aaep-term/protocol"
)

// Accepting the permission lets the tool run: the proof file exists, the
// agent's allow_once option was selected, and the completion and the
// answer are said.
func TestAcceptRunsTool(t *testing.T) {
	t.Parallel()
	r := start(t, "happy", acp.Options{Task: "write the proof file"})
	n := r.prompt(t)
	if _, ok := r.file(acptest.ProofFile); ok {
		t.Fatal("the tool ran before the user answered")
	}
	if err := r.c.Confirm(context.Background(), n, protocol.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "code is done and waiting for you.")
	if _, ok := r.file(acptest.ProofFile); !ok {
		t.Errorf("no proof file after accept:\n%s", r.text())
	}
	if out, _ := r.file(acptest.OutcomeFile); !strings.Contains(out, `"optionId":"yes"`) {
		t.Errorf("outcome %q, want the allow_once option", out)
	}
	all := r.text()
	for _, want := range []string{"The proof file is written.", "Write the proof file: done.", "step 2 of 3: Write the proof file", "code is thinking."} {
		if !strings.Contains(all, want) {
			t.Errorf("never said %q:\n%s", want, all)
		}
	}
	if mode, _ := r.file(acptest.ModeFile); strings.TrimSpace(mode) != "default" {
		t.Errorf("modes set %q, want default (the agent started in auto)", mode)
	}
	r.checkValid(t)
}
