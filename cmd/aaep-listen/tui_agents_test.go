package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// The TUI of a run of two demo agents, in a real terminal: the status
// line says the terms are each agent's; the agents view lists both, from
// the listener; muting one there goes through the listener's commands and
// comes back in the view; "only" one shows its terms on the status line.
func TestTUISeveralAgents(t *testing.T) {
	bin := buildListener(t)
	tt := startTUITerminal(t, "NO_COLOR=1 TERM=xterm-256color "+bin+" --tui --demo --agents 2 --demo-speed 0")
	waitFor(t, tt.screen, "terms: several agents, each its own (A: the agents view)", 30*time.Second)
	tt.keys("A")
	waitFor(t, tt.screen, "Agents: 2, the selected one marked >", 5*time.Second)
	s := waitFor(t, tt.screen, "> code", 5*time.Second)
	if !strings.Contains(s, "mail") {
		t.Errorf("the agents view lacks mail:\n%s", s)
	}
	tt.keys("u")
	waitFor(t, tt.screen, "muted", 5*time.Second)
	tt.keys("O")
	tt.waitMatch(regexpTermsOfOne)
	tt.keys("q")
	waitFor(t, tt.all, "EXITED rc=0", 30*time.Second)
}

var regexpTermsOfOne = regexp.MustCompile(`terms: rate .*verbosity`)
