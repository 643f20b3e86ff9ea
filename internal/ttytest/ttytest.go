// Package ttytest runs commands in a real terminal for tests: a detached
// tmux session on a server socket of its own, and builds the binaries to run.
package ttytest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Build compiles the main package pkg ("." for the current directory, or a
// path such as ../aaep-listen) into a temporary directory and returns the
// binary's path.
func Build(t testing.TB, pkg, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Terminal is a command running in a tmux window.
type Terminal struct {
	t    testing.TB
	sock string
}

// Start runs command (a shell command line) in a terminal of cols x rows
// with the environment entries env ("NAME=value"). When the command ends,
// the window shows "EXITED rc=N". tmux missing fails the test under CI and
// skips it elsewhere. The server is killed when the test ends.
func Start(t testing.TB, cols, rows int, env []string, command string) *Terminal {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is needed for the real-terminal tests (scripts/test installs it)")
		}
		t.Skip("tmux not installed")
	}
	tt := &Terminal{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	args := []string{"new-session", "-d", "-s", "t", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows)}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	tt.Tmux(append(args, command+"; echo EXITED rc=$?; sleep 60")...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tt.sock, "kill-server").Run() })
	return tt
}

// Tmux runs a tmux command against the terminal's server.
func (tt *Terminal) Tmux(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tt.sock}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %s: %v: %s", args[0], err, out)
	}
	return string(out)
}

// Screen is the visible screen as text.
func (tt *Terminal) Screen() string { return tt.Tmux("capture-pane", "-p", "-t", "t") }

// Keys types keys (tmux send-keys names: Enter, Escape, C-c, or text).
func (tt *Terminal) Keys(k ...string) { tt.Tmux(append([]string{"send-keys", "-t", "t"}, k...)...) }

// Wait polls the screen every 50 ms until ok accepts it or timeout passes,
// and returns the last screen and whether ok accepted it.
func (tt *Terminal) Wait(timeout time.Duration, ok func(screen string) bool) (string, bool) {
	deadline := time.Now().Add(timeout)
	for {
		s := tt.Screen()
		if ok(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitFor waits until the screen contains want, failing the test after timeout.
func (tt *Terminal) WaitFor(timeout time.Duration, want string) string {
	tt.t.Helper()
	s, ok := tt.Wait(timeout, func(s string) bool { return strings.Contains(s, want) })
	if !ok {
		tt.t.Fatalf("the screen never showed %q; it shows:\n%s", want, s)
	}
	return s
}
