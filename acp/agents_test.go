package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
