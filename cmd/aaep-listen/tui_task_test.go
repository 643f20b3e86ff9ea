package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/acptest"
)

// In a real terminal, T opens the TUI's task input for the ACP agent: the
// message line says what to do, the cursor is on the input, Enter gives
// the agent the task (the line says what was sent, the agent then asks),
// and the agent's request is answered with a key.
func TestTUITaskInput(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tt := startTUITerminal(t, "cd "+dir+" && NO_COLOR=1 TERM=xterm-256color "+acptest.Env+"=happy "+bin+
		` --tui --answer-after 0 "acp:'`+exe+`' -test.run=^$"`)
	waitFor(t, tt.screen, "is ready, in mode default", 30*time.Second)
	tt.keys("T")
	waitFor(t, tt.screen, "Task: type it; Enter sends it, Escape cancels.", 10*time.Second)
	if l := tt.cursorLine(); !strings.HasPrefix(l, "Task:") {
		t.Errorf("the cursor is not on the task input but on %q", l)
	}
	tt.keys("-l", "write the proof file")
	tt.keys("Enter")
	waitFor(t, tt.screen, "Sending the agent the task: write the proof file", 10*time.Second)
	waitFor(t, tt.screen, "CONFIRMATION NEEDED, prompt 1", 30*time.Second)
	tt.keys("r")
	waitFor(t, tt.all, "waiting for you", 30*time.Second)
	tt.keys("q")
	s := waitFor(t, tt.all, "EXITED rc=0", 30*time.Second)
	if !strings.Contains(s, "a task: write the proof file") {
		t.Errorf("the task was not said given:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err == nil {
		t.Error("the tool ran after a reject")
	}
}
