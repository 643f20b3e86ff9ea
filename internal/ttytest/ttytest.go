// Package ttytest runs commands in a real terminal for tests: a detached
// tmux session on a server socket of its own, and builds the binaries to run.
package ttytest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// builds holds the binaries Build made in this test process, each built
// once: a suite's tests share them instead of linking the same command
// again for each test (aaep-replay's tests linked three commands 14 times).
var builds struct {
	mu  sync.Mutex
	dir string            // made on first use, removed by Main
	of  map[string]*built // by package, name and flags
}

// built is one binary of builds; done is closed once it is made.
type built struct {
	done chan struct{}
	path string
	err  error
}

// Build compiles the main package pkg ("." for the current directory, or a
// path such as ../aaep-listen) with the go build flags given (such as
// "-race") and returns the binary's path, named name. The binary is built
// once per test process and shared by every test that asks for the same
// package, name and flags, the parallel ones too; a package whose tests
// call Build runs them through Main, which removes the binaries.
func Build(t testing.TB, pkg, name string, flags ...string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Join(append([]string{abs, name}, flags...), "\x00")
	builds.mu.Lock()
	if builds.of == nil {
		builds.of = map[string]*built{}
	}
	b, ok := builds.of[key]
	if !ok {
		b = &built{done: make(chan struct{})}
		builds.of[key] = b
		if builds.dir == "" {
			builds.dir, b.err = os.MkdirTemp("", "ttytest-build")
		}
	}
	// Each binary in a directory of its own: two may share a name.
	dir := filepath.Join(builds.dir, fmt.Sprint(len(builds.of)))
	builds.mu.Unlock()
	if !ok {
		if b.err == nil {
			b.path, b.err = build(filepath.Join(dir, name), abs, flags)
		}
		close(b.done)
	}
	<-b.done
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// build runs go build of pkg into bin, in a directory of its own.
func build(bin, pkg string, flags []string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		return "", err
	}
	args := append(append([]string{"build", "-o", bin}, flags...), pkg)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// Main runs the tests of m and then removes the binaries Build made; a
// TestMain calls it in place of m.Run:
//
//	func TestMain(m *testing.M) { os.Exit(ttytest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	builds.mu.Lock()
	defer builds.mu.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	return code
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

// Written starts keeping what the command writes to the terminal from now
// on, and returns a function that stops keeping and returns what was kept:
// a line drawn for a moment and then rewritten or cleared is in it even if
// no look at the screen fell in that moment. Call it once the command has
// written all it will (it has exited); later calls return the same.
func (tt *Terminal) Written() func() string {
	tt.t.Helper()
	f := filepath.Join(tt.t.TempDir(), "written")
	// tmux hands the pane's output to cat as it comes; what cat has not
	// written yet is only in the file once cat has read its end. Then the
	// pipe's shell signals a tmux channel, which tmux remembers if nobody
	// waits on it yet.
	done := fmt.Sprintf("written-%p", tt)
	tt.Tmux("pipe-pane", "-O", "-t", "t", fmt.Sprintf("cat >> '%s'; tmux -S '%s' wait-for -S '%s'", f, tt.sock, done))
	var once sync.Once
	var kept string
	return func() string {
		once.Do(func() {
			tt.Tmux("pipe-pane", "-t", "t") // no command: the pipe is closed
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := exec.CommandContext(ctx, "tmux", "-S", tt.sock, "wait-for", done).Run(); err != nil {
				tt.t.Errorf("ttytest: what was written to the terminal was not all kept: %v", err)
			}
			b, _ := os.ReadFile(f) // not there when nothing was written
			kept = string(b)
		})
		return kept
	}
}

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
