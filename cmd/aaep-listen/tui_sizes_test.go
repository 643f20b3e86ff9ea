package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// flat is the screen as one line of words, without the marks that begin
// the rows going on from the row above.
func flat(screen string) string {
	return strings.Join(strings.Fields(goesOn.ReplaceAllString(screen, "")), " ")
}

// goesOn is the mark of a row that goes on from the row above (tui).
var goesOn = regexp.MustCompile(`(?m)^… `)

// At 40x12 (large font), 80x24 and 160x50 the view fits the screen with
// the prompt's details open: the status line stays on the first row, the
// confirmation's headline keeps its risk, default and time left, the
// consequence is whole (wrapped between words, never cut mid-word when
// there is room), and the help takes few pages (real tmux).
func TestTUISizes(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	const consequence = "Consequence: The money leaves your account at once. A bank transfer cannot be called back."
	for _, tc := range []struct {
		cols, rows int
		whole      bool // the consequence fits whole
		maxPages   int
	}{{40, 12, false, 8}, {80, 24, true, 3}, {160, 50, true, 1}} {
		t.Run(fmt.Sprintf("%dx%d", tc.cols, tc.rows), func(t *testing.T) {
			t.Parallel()
			term := ttytest.Start(t, tc.cols, tc.rows, []string{"NO_COLOR=1", "TERM=xterm-256color"},
				bin+" --tui --no-sign --demo --demo-speed 0 --demo-scenarios confirm")
			term.WaitFor(30*time.Second, "CONFIRMATION NEEDED")
			term.Keys("d")
			s, ok := term.Wait(10*time.Second, func(s string) bool { return strings.Contains(s, "Consequence:") })
			if !ok {
				t.Fatalf("d showed no details:\n%s", s)
			}
			check := func(what, s string) {
				t.Helper()
				if !strings.HasPrefix(s, "FOLLOWING |") {
					t.Errorf("%s: the status line scrolled off:\n%s", what, s)
				}
				if !regexp.MustCompile(`Risk high\. Default reject, \d+m\d+s left\.`).MatchString(flat(s)) {
					t.Errorf("%s: the headline lost its risk, default or time left:\n%s", what, s)
				}
			}
			check("d", s)
			if tc.whole && !strings.Contains(flat(s), consequence) {
				t.Errorf("the consequence is not whole:\n%s", s)
			}
			if !tc.whole && !strings.Contains(flat(s), "The money leaves your") {
				t.Errorf("the consequence is not shown:\n%s", s)
			}
			term.Keys("?")
			s, _ = term.Wait(10*time.Second, func(s string) bool { return strings.Contains(s, "Keys") && strings.Contains(s, "previous event") })
			check("?", s)
			if m := regexp.MustCompile(`Keys, page 1 of (\d+)`).FindStringSubmatch(s); m != nil {
				if n := m[1]; len(n) > 1 || int(n[0]-'0') > tc.maxPages {
					t.Errorf("the help takes %s pages, want at most %d:\n%s", n, tc.maxPages, s)
				}
			} else if tc.maxPages > 1 && !strings.Contains(s, "Keys (any key closes this help):") {
				t.Errorf("no help heading:\n%s", s)
			}
			term.Keys("x") // closes the help (escape and q would arrive as alt+q)
			term.Keys("q")
			term.WaitFor(10*time.Second, "EXITED rc=0")
		})
	}
}

// With three agents, the row of endpoints names each endpoint's agent, and
// "Also waiting" names every other prompt with its agent, at 80x24 and at
// 40x12 (real tmux).
func TestTUISeveralAgentsNamed(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	for _, size := range [][2]int{{80, 24}, {40, 12}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			term := ttytest.Start(t, size[0], size[1], []string{"NO_COLOR=1", "TERM=xterm-256color"},
				bin+" --tui --no-sign --demo --agents 3 --demo-speed 0")
			all := regexp.MustCompile(`prompt (\d) from (\w+).* Also waiting: (\d) from (\w+)[ ,(].*(\d) from (\w+)`)
			s, ok := term.Wait(60*time.Second, func(s string) bool { return all.MatchString(flat(s)) })
			if !ok {
				t.Fatalf("Also waiting does not name every prompt:\n%s", s)
			}
			if row := strings.Split(s, "\n")[1]; strings.Contains(row, "://") && !strings.HasPrefix(row, "3 agents: code ") {
				t.Errorf("the endpoint row does not name its agent:\n%s", s)
			}
			m := all.FindStringSubmatch(flat(s))
			if seen := m[1] + m[3] + m[5]; !strings.Contains(seen, "1") || !strings.Contains(seen, "2") || !strings.Contains(seen, "3") {
				t.Errorf("prompts %s named, want 1, 2 and 3:\n%s", seen, s)
			}
			term.Keys("q")
			term.WaitFor(10*time.Second, "EXITED rc=0")
		})
	}
}
