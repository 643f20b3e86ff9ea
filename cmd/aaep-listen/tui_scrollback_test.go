package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// historyLine is a line printed above the inline view: a time, then words.
var historyLine = regexp.MustCompile(`^\d\d:\d\d:\d\d \S`)

// In inline mode the lines printed above the view, which a screen reader's
// review buffer reads, are whole: each long line wraps onto rows of its own
// and no fragment of the view's status rows is left in them. The demo runs
// at its own pace, so the view is drawn between the lines printed.
func TestTUIScrollbackClean(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	term := ttytest.Start(t, 80, 24, []string{"NO_COLOR=1", "TERM=xterm-256color"},
		bin+" --tui --demo --demo-speed 1 --demo-scenarios happy,error")
	term.WaitFor(60*time.Second, "The stream has ended; press q to quit")
	term.Keys("q")
	term.WaitFor(10*time.Second, "EXITED rc=0")
	all := term.Tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")
	var printed []string
	for _, l := range strings.Split(all, "\n") {
		if strings.HasPrefix(l, "EXITED") {
			break
		}
		if strings.HasPrefix(l, "aaep-listen: ") && printed == nil {
			continue // said before the view started, such as a new key made
		}
		if l = strings.TrimRight(l, " "); l != "" {
			printed = append(printed, l)
		}
	}
	for i, l := range printed {
		if !historyLine.MatchString(l) {
			t.Errorf("scrollback line is not a printed announcement: %q", l)
		}
		if i > 0 && l[:8] < printed[i-1][:8] {
			t.Errorf("scrollback out of order: %q after %q", l, printed[i-1])
		}
		for _, frag := range []string{" | ", "terms:", "events shown", "FOLLOWING", "SSE http"} {
			if strings.Contains(l, frag) {
				t.Errorf("status fragment %q in the scrollback line %q", frag, l)
			}
		}
	}
	// The long lines, each wider than the screen, end where their text ends.
	for _, end := range []string{
		"with a light north wind in the afternoon.",
		"The mail server refused the saved password.",
		"Sign in to your mail account again, then ask me once more.",
	} {
		found := false
		for _, l := range printed {
			found = found || strings.HasSuffix(l, end)
		}
		if !found {
			t.Errorf("no scrollback line ends with %q:\n%s", end, strings.Join(printed, "\n"))
		}
	}
}

// At 80 columns, with keys remapped: the prompt's hint names the keys
// bound, a row shows its text (the fixed columns give way), and at the end
// of the stream the view stays open, saying so with the quit key bound.
func TestTUIRemapAndNarrowScreen(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	keyFile := filepath.Join(t.TempDir(), "tui-keys")
	if err := os.WriteFile(keyFile, []byte("accept = A\nreject = X\nquit = Q\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	term := ttytest.Start(t, 80, 24, []string{"NO_COLOR=1", "TERM=xterm-256color"},
		bin+" --tui --tui-keys "+keyFile+" --demo --demo-speed 0 --answer-after 0 --demo-scenarios confirm") // the key right away: not about --answer-after
	s := term.WaitFor(30*time.Second, "CONFIRMATION NEEDED")
	if !strings.Contains(s, "Keys: A accept, X reject, d details.") {
		t.Errorf("the prompt's keys are not the ones bound:\n%s", s)
	}
	if !strings.Contains(s, "NORMAL     tool.completed   The bill is 86.40 euros, due on Friday.") {
		t.Errorf("at 80 columns a row does not show its text:\n%s", s)
	}
	term.Keys("X")
	term.WaitFor(30*time.Second, "The stream has ended; press Q to quit")
	s = term.Screen()
	if strings.Contains(s, "EXITED") {
		t.Fatalf("the view closed at the end of the stream:\n%s", s)
	}
	term.Keys("q") // not bound any more: the view stays
	term.Keys("Q")
	term.WaitFor(10*time.Second, "EXITED rc=0")
}
