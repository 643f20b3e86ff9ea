package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// buildListener builds aaep-listen, without the race detector, once for
// the tests that run it in a real terminal.
func buildListener(t *testing.T) string {
	t.Helper()
	return ttytest.Build(t, ".", "aaep-listen")
}

// tmuxSession runs command in a real terminal (a detached tmux session of
// 100x40) and returns a function reading the screen with its attributes.
func tmuxSession(t *testing.T, command string) (screen func() string, keys func(...string)) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is needed for the real-terminal tests (scripts/test installs it)")
		}
		t.Skip("tmux not installed")
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "40", command+"; echo EXITED rc=$?; sleep 60"); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { _, _ = tmux("kill-server") })
	screen = func() string {
		out, _ := tmux("capture-pane", "-p", "-e", "-J", "-S", "-", "-t", "t")
		return out
	}
	keys = func(k ...string) {
		if out, err := tmux(append([]string{"send-keys", "-t", "t"}, k...)...); err != nil {
			t.Fatalf("send-keys: %v: %s", err, out)
		}
	}
	return screen, keys
}

// waitFor polls the screen until it contains want.
func waitFor(t *testing.T, screen func() string, want string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s := screen()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// In a real terminal with NO_COLOR, line mode writes words only: the screen,
// captured with its attributes, holds no escape sequence at all.
func TestTerminalPlainModeHasNoEscapes(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	screen, _ := tmuxSession(t, "NO_COLOR=1 TERM=xterm-256color "+bin+" --demo --demo-speed 0 --demo-scenarios happy,error")
	s := waitFor(t, screen, "EXITED rc=0", 30*time.Second)
	if strings.Contains(s, "\x1b") {
		t.Errorf("escape sequence on a NO_COLOR terminal:\n%q", s)
	}
	for _, want := range []string{"Error:", "CRITICAL", "The producer ended the stream."} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// Ctrl-C on an idle stream ends the listener promptly and cleanly, and the
// prompt still waiting is announced with its default decision.
func TestTerminalInterruptWhileIdle(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	screen, keys := tmuxSession(t, bin+" --plain --demo --demo-speed 0 --demo-scenarios confirm")
	waitFor(t, screen, "To answer, type: accept 1", 30*time.Second)
	start := time.Now()
	keys("C-c")
	s := waitFor(t, screen, "EXITED rc=0", 5*time.Second)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to stop after Ctrl-C", d)
	}
	if !strings.Contains(s, "so the agent will reject") {
		t.Errorf("pending prompt not announced at exit:\n%s", s)
	}
}

// A confirmation answered by typing in a real terminal changes what the agent does.
func TestTerminalAnswerByTyping(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	screen, keys := tmuxSession(t, bin+" --plain --demo --demo-speed 0 --demo-scenarios confirm")
	waitFor(t, screen, "To answer, type: accept 1", 30*time.Second)
	keys("reject 1", "Enter") // numbered: a bare answer waits until the prompt was heard
	s := waitFor(t, screen, "EXITED rc=0", 30*time.Second)
	if !strings.Contains(s, "Sent your answer to prompt 1: reject.") {
		t.Errorf("reply not confirmed:\n%s", s)
	}
}
