package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tuiTerminal is aaep-listen --tui running in a real terminal: a detached
// tmux session on its own server socket.
type tuiTerminal struct {
	t    *testing.T
	sock string
}

func startTUITerminal(t *testing.T, command string) *tuiTerminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is needed for the real-terminal tests (scripts/test installs it)")
		}
		t.Skip("tmux not installed")
	}
	tt := &tuiTerminal{t: t, sock: fmt.Sprintf("aaep-tui-%d-%d", os.Getpid(), time.Now().UnixNano())}
	tt.tmux("new-session", "-d", "-s", "t", "-x", "110", "-y", "30", command+"; echo EXITED rc=$?; sleep 60")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tt.sock, "kill-server").Run() })
	return tt
}

func (tt *tuiTerminal) tmux(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %s: %v: %s", args[0], err, out)
	}
	return string(out)
}

// screen is the visible screen as text, attributes included.
func (tt *tuiTerminal) screen() string { return tt.tmux("capture-pane", "-p", "-e", "-t", "t") }

// all is the screen with its scrollback.
func (tt *tuiTerminal) all() string {
	return tt.tmux("capture-pane", "-p", "-e", "-J", "-S", "-", "-t", "t")
}

func (tt *tuiTerminal) keys(k ...string) { tt.tmux(append([]string{"send-keys", "-t", "t"}, k...)...) }

// cursorLine is the screen line the terminal cursor is on.
func (tt *tuiTerminal) cursorLine() string {
	y, err := strconv.Atoi(strings.TrimSpace(tt.tmux("display-message", "-p", "-t", "t", "#{cursor_y}")))
	if err != nil {
		tt.t.Fatal(err)
	}
	lines := strings.Split(tt.screen(), "\n")
	if y >= len(lines) {
		return ""
	}
	return lines[y]
}

// streamEnded is what the status line says once the stream has ended.
const streamEnded = "The stream has ended; press q to quit"

// quitAtEnd waits for the view to say the stream has ended (it stays open
// until the user quits) and quits.
func (tt *tuiTerminal) quitAtEnd() {
	tt.t.Helper()
	waitFor(tt.t, tt.screen, streamEnded, 30*time.Second)
	tt.keys("q")
}

// waitMatch polls the screen until re matches and returns the submatches.
func (tt *tuiTerminal) waitMatch(re *regexp.Regexp) []string {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := tt.screen()
		if m := re.FindStringSubmatch(s); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("screen never matched %s; it shows:\n%s", re, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A confirmation answered with a key in the TUI reaches the producer, which
// acts on it; with NO_COLOR nothing on screen is styled; the cursor sits
// on the prompt, then on the selected row.
func TestTUIAnswerFromKeyboard(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	tt := startTUITerminal(t, "NO_COLOR=1 TERM=xterm-256color "+bin+" --tui --demo --demo-speed 0 --answer-after 0 --demo-scenarios confirm") // the key right away: not about --answer-after
	waitFor(t, tt.screen, "CONFIRMATION NEEDED, prompt 1 from Demo Assistant", 30*time.Second)
	if l := tt.cursorLine(); !strings.HasPrefix(l, "CONFIRMATION NEEDED") {
		t.Errorf("cursor is not on the prompt but on %q", l)
	}
	if s := tt.screen(); strings.Contains(s, "\x1b") {
		t.Errorf("escape sequence on a NO_COLOR screen:\n%q", s)
	}
	tt.keys("k")
	waitFor(t, tt.screen, "PAUSED", 5*time.Second)
	if l := tt.cursorLine(); !strings.HasPrefix(l, ">") {
		t.Errorf("cursor is not on the selected row but on %q", l)
	}
	tt.keys("r")
	tt.quitAtEnd()
	s := waitFor(t, tt.all, "EXITED rc=0", 30*time.Second)
	for _, want := range []string{"Sent your answer to prompt 1: reject.", "Nothing was paid", "The producer ended the stream."} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "\x1b") {
		t.Errorf("escape sequence on a NO_COLOR screen:\n%q", s)
	}
}

// Pausing holds the list still while events keep arriving and counting;
// a filter narrows the list; q closes the subscription.
func TestTUIPauseAndFilter(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	tt := startTUITerminal(t, "TERM=xterm-256color "+bin+" --tui --demo --demo-speed 1 --demo-scenarios happy,confirm")
	waitFor(t, tt.screen, "Looking up tomorrow's weather", 30*time.Second)
	tt.keys("Space")
	m := tt.waitMatch(regexp.MustCompile(`PAUSED, \d+ new \| events \| (\d+) of`))
	held := m[1]
	selected := regexp.MustCompile(`(?m)^.*> .*$`).FindString(tt.screen())
	m = tt.waitMatch(regexp.MustCompile(`PAUSED, ([3-9]|\d\d+) new \| events \| (\d+) of (\d+)`))
	if m[2] != held {
		t.Errorf("paused list grew from %s to %s rows", held, m[2])
	}
	if now := regexp.MustCompile(`(?m)^.*> .*$`).FindString(tt.screen()); now != selected {
		t.Errorf("selection moved while paused: %q, then %q", selected, now)
	}
	tt.keys("Space")
	waitFor(t, tt.screen, "FOLLOWING", 5*time.Second)

	waitFor(t, tt.screen, "CONFIRMATION NEEDED", 30*time.Second)
	tt.keys("/", "type:tool.*", "Enter")
	m = tt.waitMatch(regexp.MustCompile(`Filter type:tool\.\*: (\d+) of (\d+) events shown`))
	if shown, _ := strconv.Atoi(m[1]); shown == 0 || m[1] == m[2] {
		t.Errorf("filter did not narrow the list: %s of %s", m[1], m[2])
	}
	for _, l := range strings.Split(tt.screen(), "\n") {
		if strings.Contains(l, " NORMAL ") || strings.Contains(l, " BACKGROUND ") {
			if !strings.Contains(l, " tool.") {
				t.Errorf("filtered list shows %q", l)
			}
		}
	}
	tt.keys("x")
	waitFor(t, tt.screen, "Filter cleared", 5*time.Second)
	tt.keys("q")
	s := waitFor(t, tt.all, "EXITED rc=0", 10*time.Second)
	if !strings.Contains(s, "You quit.") {
		t.Errorf("quit not confirmed:\n%s", s)
	}
}

// A question is answered by choosing from its list in the TUI, and a
// line-mode command typed after : works as in line mode.
func TestTUIAnswerQuestion(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	tt := startTUITerminal(t, "TERM=xterm-256color "+bin+" --tui --demo --demo-speed 0 --demo-scenarios clarify")
	waitFor(t, tt.screen, "Choices: 1 7 in the evening, 2 8 in the evening", 30*time.Second)
	tt.keys(":", "pending", "Enter")
	waitFor(t, tt.screen, "Prompt 1, question", 5*time.Second)
	tt.keys("a") // a choice list: arrows choose, enter answers
	waitFor(t, tt.screen, "CHOICES for prompt 1", 5*time.Second)
	if l := tt.cursorLine(); !strings.HasPrefix(l, "> 1 7 in the evening") {
		t.Errorf("cursor is not on the first choice but on %q", l)
	}
	tt.keys("Down")
	waitFor(t, tt.screen, "> 2 8 in the evening", 5*time.Second)
	if l := tt.cursorLine(); !strings.HasPrefix(l, "> 2 8 in the evening") {
		t.Errorf("cursor is not on the second choice but on %q", l)
	}
	tt.keys("Enter")
	tt.quitAtEnd()
	s := waitFor(t, tt.all, "EXITED rc=0", 30*time.Second)
	if !strings.Contains(s, "Sent your answer to prompt 1") || !strings.Contains(s, "took the booking for 20:00") {
		t.Errorf("answer not sent:\n%s", s)
	}
}

// Linking Bubble Tea in must not make line mode query the terminal (Bubble
// Tea v1 asks for the background colour when it loads): on a terminal, plain
// output holds no escape sequence at all.
func TestPlainModeSendsNoTerminalQuery(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("script (util-linux) is needed to run aaep-listen on a pseudo-terminal")
		}
		t.Skip("script not installed")
	}
	bin := buildListener(t)
	cmd := exec.Command("script", "-qec", bin+" --plain --demo --demo-speed 0 --demo-scenarios happy", "/dev/null")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(string(out), "\x1b") {
		t.Errorf("escape sequence in plain output on a terminal:\n%q", out)
	}
	if !strings.Contains(string(out), "The producer ended the stream.") {
		t.Errorf("run incomplete:\n%s", out)
	}
}
