package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/internal/acptest"
)

// This test binary is also the scripted ACP agent, when told which script
// to play (init runs before TestMain).
func init() {
	if s := os.Getenv(acptest.Env); s != "" {
		os.Exit(acptest.Main(s, os.Stdin, os.Stdout))
	}
}

// acpRun is a listener process whose lines are waited on as they come.
type acpRun struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	out   strings.Builder
	more  chan struct{}
	done  chan struct{}
}

// startACPListener runs aaep-listen args with this test binary as its
// acp: agent, playing script, in dir.
func startACPListener(t *testing.T, dir, script string, args ...string) *acpRun {
	t.Helper()
	return startScripted(t, dir, script, append(args, scriptedAgent(t))...)
}

// scriptedAgent is the acp: endpoint that runs this test binary as the
// scripted agent.
func scriptedAgent(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "acp:'" + exe + "' -test.run=^$"
}

// startScripted runs aaep-listen args in dir; an acp: agent that runs
// this test binary plays script.
func startScripted(t *testing.T, dir, script string, args ...string) *acpRun {
	t.Helper()
	r := &acpRun{more: make(chan struct{}, 1), done: make(chan struct{})}
	var err error
	r.cmd = exec.Command(listenerBinary(t), args...)
	r.cmd.Dir = dir
	r.cmd.Env = append(os.Environ(), "NO_COLOR=1", "TZ=UTC", acptest.Env+"="+script)
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	r.cmd.Stderr = pw
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var readers sync.WaitGroup
	for _, src := range []io.Reader{out, pr} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(src)
			for sc.Scan() {
				r.mu.Lock()
				r.out.WriteString(sc.Text() + "\n")
				r.mu.Unlock()
				select {
				case r.more <- struct{}{}:
				default:
				}
			}
		}()
	}
	go func() {
		_ = r.cmd.Wait()
		pw.Close()
		readers.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.done
	})
	return r
}

func (r *acpRun) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// waitCount waits until want has been said n times; the test's deadline
// is the only limit.
func (r *acpRun) waitCount(t *testing.T, want string, n int) {
	t.Helper()
	guard := acptest.Guard(t)
	defer guard.Stop()
	for strings.Count(r.text(), want) < n {
		select {
		case <-r.more:
		case <-r.done:
			if strings.Count(r.text(), want) >= n {
				return
			}
			t.Fatalf("the listener ended before saying %q:\n%s", want, r.text())
		case <-guard.C:
			acptest.Stuck(t, "never said %q:\n%s", want, r.text())
		}
	}
}

func (r *acpRun) wait(t *testing.T, want string) { t.Helper(); r.waitCount(t, want, 1) }

func (r *acpRun) typeLine(t *testing.T, s string) {
	t.Helper()
	if _, err := fmt.Fprintln(r.stdin, s); err != nil {
		t.Fatal(err)
	}
}

// acceptThenCancel is what the user does with an agent playing the happy
// script in dir: its request (prompt 1) accepted, both steps, and the
// proof file written only then; another task told, and cancelled, its
// request (prompt 2) answered cancelled.
func (r *acpRun) acceptThenCancel(t *testing.T, dir string) {
	t.Helper()
	r.wait(t, "Confirmation needed, prompt 1: Write the proof file.")
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err == nil {
		t.Fatal("the tool ran before the answer")
	}
	r.typeLine(t, "accept 1")
	r.wait(t, "which cannot be undone? Type yes to send")
	r.typeLine(t, "yes")
	r.wait(t, "done and waiting for you.")
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err != nil {
		t.Fatalf("no proof file after accept: %v\n%s", err, r.text())
	}
	r.typeLine(t, "tell write it again")
	r.wait(t, "Confirmation needed, prompt 2")
	r.typeLine(t, "cancel")
	r.wait(t, "The task was cancelled.")
	if outcome, _ := os.ReadFile(filepath.Join(dir, acptest.OutcomeFile)); !strings.Contains(string(outcome), `"optionId":"yes"`) || !strings.Contains(string(outcome), `"cancelled"`) {
		t.Errorf("the agent was answered %s", outcome)
	}
}

// aaep-listen 'acp:COMMAND' runs the agent in the listener's working
// directory with the --task given; accept lets its tool run, tell gives it
// another task, cancel cancels that one, and quit stops the agent.
func TestListenACPAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := startACPListener(t, dir, "happy", "--plain", "--no-time", "--task", "write the proof file")
	r.acceptThenCancel(t, dir)
	r.typeLine(t, "quit")
	<-r.done
	if modes, _ := os.ReadFile(filepath.Join(dir, acptest.ModeFile)); strings.TrimSpace(string(modes)) != "default" {
		t.Errorf("modes set: %q", modes)
	}
}

// Two ACP agents in one listener: tell AGENT reaches that one, and the
// answer to its prompt goes back to it alone.
func TestListenTwoACPAgents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := startACPListener(t, dir, "happy", "--plain", "--no-time", "code="+scriptedAgent(t))
	r.waitCount(t, "It waits for your task", 2)
	r.typeLine(t, "tell write the proof file")
	r.wait(t, "Several agents take tasks: type tell AGENT TEXT")
	r.typeLine(t, "tell code write the proof file")
	r.wait(t, "Confirmation needed, prompt 1")
	r.typeLine(t, "reject 1")
	r.wait(t, "done and waiting for you.")
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err == nil {
		t.Error("the tool ran after reject")
	}
	if outcome, _ := os.ReadFile(filepath.Join(dir, acptest.OutcomeFile)); strings.Count(string(outcome), "\n") != 1 || !strings.Contains(string(outcome), `"optionId":"no"`) {
		t.Errorf("the agents were answered %q", outcome)
	}
}

// An --agents file entry starts an acp: agent as the command line does,
// with its own mode, first task and working directory (relative to the
// file): the agent works in that directory, and the answer reaches it.
func TestListenACPAgentsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	file, _ := json.Marshal([]map[string]string{{"endpoint": scriptedAgent(t), "label": "code", "mode": "yolo", "task": "write the proof file", "dir": "repo"}})
	if err := os.WriteFile(filepath.Join(dir, "agents.json"), file, 0o600); err != nil {
		t.Fatal(err)
	}
	r := startScripted(t, dir, "happy", "--plain", "--no-time", "--agents", "agents.json")
	r.wait(t, "Confirmation needed, prompt 1: Write the proof file.")
	r.typeLine(t, "accept 1")
	r.wait(t, "which cannot be undone? Type yes to send")
	r.typeLine(t, "yes")
	r.wait(t, "done and waiting for you.")
	if _, err := os.Stat(filepath.Join(repo, acptest.ProofFile)); err != nil {
		t.Errorf("no proof file in the entry's directory after accept: %v\n%s", err, r.text())
	}
	if modes, _ := os.ReadFile(filepath.Join(repo, acptest.ModeFile)); strings.TrimSpace(string(modes)) != "yolo" {
		t.Errorf("modes set: %q, want the entry's yolo", modes)
	}
	if !strings.Contains(r.text(), "in mode yolo. Warning") {
		t.Errorf("the mode was not said as a warning:\n%s", r.text())
	}
	r.typeLine(t, "quit")
	<-r.done
}
