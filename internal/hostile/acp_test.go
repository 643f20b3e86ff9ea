package hostile_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/tui"
)

// acpAgent runs aaep-listen on a scripted ACP agent (this test binary)
// that puts h in every string it sends: its name and modes, thoughts,
// plan, tool calls (titles, paths, commands, diffs, output), permission
// options, unknown update kinds and methods, a form of three fields and a
// question in URL mode, and its standard error. The listener accepts the
// permission request (both steps), reads it in full, answers the form
// with one answer that does not fit (refused, asked again), and asks for
// the pending and agents lists, the terms and help. flags are added:
// --verbosity detailed says every quiet status too (the subscription, the
// producer's notes, "The producer's log: …").
func acpAgent(flags ...string) func(*testing.T, string) string {
	return func(t *testing.T, h string) string { return listenACP(t, h, flags) }
}

func listenACP(t *testing.T, h string, flags []string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--plain", "--no-sign", "--task", "go"}, flags...)
	cmd := exec.Command(filepath.Join(bin, "aaep-listen"), append(args, "acp:'"+exe+"' -test.run=^$")...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", acptest.Env+"="+acptest.Everywhere, acptest.TextEnv+"="+h)
	out := newPrinted()
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for _, step := range []struct{ want, typed string }{
		{"type: accept 1", "details 1\naccept 1\n"},
		{"Type yes to send", "yes\n"},
		{"type: answer 2,", "answer 2 1\n"},
		{"type: answer 3,", "answer 3 yes\n"},
		{"type: answer 4,", "answer 4 99\n"}, // does not fit: refused, asked again
		{"type: answer 5,", "pending\nanswer 5 2\n"},
		{"waiting for you", "agents\nterms\nhelp tell\nhelp answer\nquit\n"},
	} {
		if !out.waitFor(step.want) {
			t.Errorf("the listener never said %q:\n%s", step.want, clip(out.String()))
			return out.String()
		}
		stdin.Write([]byte(step.typed))
	}
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(cmd.Dir, acptest.ProofFile)); err != nil {
		t.Errorf("the accept never reached the agent: %v", err)
	}
	return out.String()
}

// sharedPlainName runs aaep-listen on two producers giving one plain name
// made of h (printable ASCII, single spaces: only such a name is shared
// rather than told apart at once): the line saying both are named with
// their addresses from now on (Group.DisplayNote) quotes it.
func sharedPlainName(t *testing.T, h string) string {
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ' && (b.Len() == 0 || strings.HasSuffix(b.String(), " ")):
		case r >= ' ' && r <= '~' && !strings.ContainsRune("()[]{}<>#", r):
			b.WriteRune(r)
		}
	}
	name := strings.TrimSpace(b.String())
	out := listenTwoPrompts(t, nil, producer(t, name, false), producer(t, name, false))
	if !strings.Contains(out, "Two agents call themselves") {
		t.Errorf("the shared name was not said:\n%s", clip(out))
	}
	return out
}

// bridgeLines runs aaep-bridge on a scripted ACP agent that puts h in
// every string it sends (its name, modes, tool calls, standard error…),
// named h itself (--name), and returns what it prints: one line an
// endpoint, naming the agent, and the bridge's and the producer's log
// lines about it (its mode, its standard error, a subscriber that
// follows it: this test's own, over HTTP).
func bridgeLines(t *testing.T, h string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	local, remove := socketDir(t)
	defer remove()
	cmd := exec.Command(filepath.Join(bin, "aaep-bridge"), "--name", h, "--local-dir", local, "--task", "go", "--", exe, "-test.run=^$")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), acptest.Env+"="+acptest.Everywhere, acptest.TextEnv+"="+h)
	out := newPrinted()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	serving := regexp.MustCompile(`Serving .* at (http://\S+)`)
	if !out.waitFor(func(s string) bool { return strings.Count(s, "Serving ") >= 4 && serving.MatchString(s) }) {
		t.Errorf("aaep-bridge never said its endpoints:\n%s", clip(out.String()))
		return out.String()
	}
	// A subscriber follows it: the producer logs it, and the agent's
	// stream (its task begun) reaches it.
	url := serving.FindStringSubmatch(out.String())[1]
	sub := listenerOn(t, url)
	if !out.waitFor("subscribed as") || !sub.waitFor("type: accept") {
		t.Errorf("the subscription was not logged, or the agent's request never reached the subscriber:\n%s\n%s", clip(out.String()), clip(sub.String()))
	}
	return out.String()
}

// socketDir makes a directory for Unix sockets, with a short path (a
// socket's has room for about 100 bytes), and a function that removes it.
func socketDir(t *testing.T) (dir string, remove func()) {
	dir, err := os.MkdirTemp("", "hs")
	if err != nil {
		t.Fatal(err)
	}
	return dir, func() { os.RemoveAll(dir) }
}

// listenerOn runs aaep-listen on url, its standard input open, until the
// test ends; what it prints is returned as it comes.
func listenerOn(t *testing.T, url string) *printed {
	out, _, stop := typedListenerOn(t, url)
	t.Cleanup(stop)
	return out
}

// typedListenerOn runs aaep-listen on url and returns what it prints, as
// it comes, its standard input, and stop, which ends it.
func typedListenerOn(t *testing.T, url string) (out *printed, stdin io.Writer, stop func()) {
	cmd := exec.Command(filepath.Join(bin, "aaep-listen"), "--plain", "--no-sign", url)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "TERM=xterm-256color") // --plain must hold even where colour could be
	out = newPrinted()
	cmd.Stdout, cmd.Stderr = out, out
	in, err := cmd.StdinPipe() // open: someone may answer
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return out, in, func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }
}

// tuiTaskInput opens the TUI's task input (the task key) for an agent that
// takes tasks named h, beside another that does not, and types a task:
// the input's line "Task for AGENT: " and the message line name it. The
// model is driven in this process (tui.Model, as aaep-listen --tui runs
// it), its screen returned as the terminal would get it.
func tuiTaskInput(t *testing.T, h string) string {
	m := tui.New(tui.Options{Theme: tui.ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 250, Height: 40})
	m.Update(tui.AgentsMsg{{Label: h, Endpoint: "acp:agent", State: "connected", Tasks: true}, {Label: "other", Endpoint: "http://127.0.0.1:9/", State: "connected"}})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("T")})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("write it")})
	screen := m.View()
	if !strings.Contains(screen, "Task for ") {
		t.Errorf("the task input was not opened:\n%s", clip(screen))
	}
	return screen
}
