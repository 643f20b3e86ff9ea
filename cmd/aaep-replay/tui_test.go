package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// play --tui in a real terminal: the capture shows in the debug view, and
// commands typed through its command key (:) steer playing.
func TestPlayTUI(t *testing.T) {
	t.Parallel()
	bin := ttytest.Build(t, ".", "aaep-replay")
	file, err := filepath.Abs(corpus + "clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	term := ttytest.Start(t, 120, 40, []string{"TERM=xterm-256color"}, bin+" play --tui --paused --speed 0 "+file)
	term.WaitFor(30*time.Second, "Paused at the start")
	if strings.Contains(term.Screen(), "Bank Helper is starting") {
		t.Fatal("something was played before the first command")
	}
	command := func(line string) {
		term.Keys(":")
		// Typed keys go to the command line once it is open, empty.
		if s, ok := term.Wait(20*time.Second, commandLineOpen); !ok {
			t.Fatalf("the command line did not open:\n%s", s)
		}
		term.Keys(line, "Enter")
	}
	command("step")
	term.WaitFor(20*time.Second, "Bank Helper is starting")
	command("next critical")
	term.WaitFor(20*time.Second, "Confirmation needed, prompt 1")
	command("where")
	term.WaitFor(20*time.Second, "paused")
	// The playing keys: ] jumps to the next critical event, > goes faster.
	term.Keys("]")
	term.WaitFor(20*time.Second, "Confirmation needed, prompt 2")
	term.Keys(">")
	term.WaitFor(20*time.Second, "Already as fast as possible")
	term.Keys("q")
	if _, ok := term.Wait(20*time.Second, func(s string) bool { return strings.Contains(s, "EXITED rc=0") }); !ok {
		t.Fatalf("play --tui did not end on q:\n%s", term.Screen())
	}
}

// commandLineOpen reports whether screen shows the command line, empty.
func commandLineOpen(screen string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) == "Command:" {
			return true
		}
	}
	return false
}
