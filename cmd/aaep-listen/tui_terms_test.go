package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// The renegotiate dialog, in a real terminal against the demo producer:
// the status line shows the terms granted at the handshake; R, a new rate
// and excluded types and enter renegotiate both, one after the other, and
// the status line then shows what the producer granted.
func TestTUIRenegotiate(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	tt := startTUITerminal(t, "NO_COLOR=1 TERM=xterm-256color "+bin+
		" --tui --rate 50 --demo --demo-speed 0 --answer-after 0 --demo-scenarios confirm") // the key right away: not about --answer-after
	waitFor(t, tt.screen, "CONFIRMATION NEEDED, prompt 1", 30*time.Second)
	waitFor(t, tt.screen, "SSE http://127.0.0.1:", 5*time.Second)
	waitFor(t, tt.screen, "terms: rate at most 50/s, verbosity normal", 5*time.Second)
	tt.keys("R")
	waitFor(t, tt.screen, "RENEGOTIATE: change fields", 5*time.Second)
	if l := tt.cursorLine(); l != "> Rate, most events a second (blank: no limit): 50" {
		t.Errorf("cursor on %q, not in the rate field", l)
	}
	tt.keys("C-u", "5", "BTab") // shift+tab wraps to the last field
	waitFor(t, tt.screen, "> Never these event types (agent.progress.*):", 5*time.Second)
	if l := tt.cursorLine(); !strings.HasPrefix(l, "> Never these event types") {
		t.Errorf("cursor on %q, not in the exclude field", l)
	}
	tt.keys("agent.progress.*", "Enter")
	tt.waitMatch(regexp.MustCompile(`terms: rate at most 5/s, .*exclude aaep:agent\.progress\.\*`))
	tt.keys("r")
	tt.quitAtEnd()
	s := waitFor(t, tt.all, "EXITED rc=0", 30*time.Second)
	for _, want := range []string{"Asked the producer to set rate to 5.", "Asked the producer to set exclude to agent.progress.*.", "The producer accepted the new terms."} {
		if !strings.Contains(s, want) {
			t.Errorf("the view lacks %q:\n%s", want, s)
		}
	}
	if regexp.MustCompile(`\x1b\[[0-9;]*m`).MatchString(s) {
		t.Errorf("style escape on a NO_COLOR screen:\n%q", s)
	}
}
