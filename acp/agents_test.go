package acp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

// agentsCache is the folder scripts/test installs real agents into.
func agentsCache(t *testing.T) string {
	t.Helper()
	if c := os.Getenv("AAEP_AGENTS_CACHE"); c != "" {
		return c
	}
	c, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c, "aaep-term", "agents")
}

// needAgent skips the test when a real agent's files (or node) are
// missing, and fails it when CI is set.
func needAgent(t *testing.T, what string, files ...string) (node string) {
	t.Helper()
	node, err := exec.LookPath("node")
	for _, f := range files {
		if _, serr := os.Stat(f); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed, or node is missing (%v): scripts/test installs it", what, err)
		}
		t.Skipf("%s is not installed (%v): scripts/test installs it", what, err)
	}
	return node
}

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
