package acp_test

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/internal/realagent"
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
	if err := r.c.Confirm(acptest.Context(t), n, decision); err != nil {
		t.Fatal(err)
	}
	r.waitText(t, "waiting for you.")
	proof, ran := r.file("proof.txt")
	if accepted := decision == protocol.DecisionAccept; ran != accepted || accepted && proof != "ok\n" {
		t.Errorf("after %s the proof file is %q (there: %v):\n%s", decision, proof, ran, r.text())
	}
	return r
}

// acceptAndReject runs a real agent's proof task twice in parallel, the
// permission accepted and rejected: start makes the agent (with its
// scripted model) for the run, the options and sinks to run it with, and
// check, which checks what that agent says besides what every one says:
// its mode, and that its task ended.
func acceptAndReject(t *testing.T, start func(t *testing.T, decision string) (agent realagent.Agent, opts acp.Options, sinks []announce.Sink, check func(all string))) {
	t.Parallel()
	for _, decision := range []string{protocol.DecisionAccept, protocol.DecisionReject} {
		t.Run(decision, func(t *testing.T) {
			t.Parallel()
			agent, opts, sinks, check := start(t, decision)
			opts.Env = agent.Env
			r := proofTask(t, agent.Endpoint, opts, decision, sinks...)
			all := r.text()
			if !strings.Contains(all, "is ready, in mode default.") || !strings.Contains(all, "is done and waiting for you.") {
				t.Errorf("the mode or the end of the task was not said:\n%s", all)
			}
			check(all)
			r.checkValid(t)
		})
	}
}
