package acp_test

import (
	"context"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

// proofTask runs a real agent told to write the proof file (its scripted
// model runs echo ok > proof.txt): it waits for the permission request,
// checks nothing ran before the answer, answers decision, waits for the
// end of the task, and checks the file exists after an accept and only
// then. It returns the rig, to check what the agent said.
func proofTask(t *testing.T, endpoint string, opts acp.Options, decision string, sinks ...announce.Sink) *rig {
	t.Helper()
	opts.Task = "write the proof file"
	r := startEndpoint(t, endpoint, opts, sinks...)
	n := r.prompt(t)
	if _, ok := r.file("proof.txt"); ok {
		t.Fatal("the command ran before the answer")
	}
	if err := r.c.Confirm(context.Background(), n, decision); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "waiting for you.")
	proof, ran := r.file("proof.txt")
	if accepted := decision == protocol.DecisionAccept; ran != accepted || accepted && proof != "ok\n" {
		t.Errorf("after %s the proof file is %q (there: %v):\n%s", decision, proof, ran, r.text())
	}
	return r
}
