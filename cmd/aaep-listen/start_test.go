package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/golden"
	"github.com/aaep-term/aaep-term/producer"
)

// startLines runs the real listener with args, standard input open, and
// returns its first n lines of standard output, ports hidden.
func startLines(t *testing.T, n int, args ...string) []string {
	t.Helper()
	cmd := exec.Command(listenerBinary(t), append([]string{"--demo-speed", "0", "--no-time", "--plain", "--no-sign"}, args...)...)
	cmd.Env = append(cmd.Environ(), "NO_COLOR=1", "TZ=UTC")
	stdin, err := cmd.StdinPipe() // open: somebody may answer
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		fmt.Fprintln(stdin, "quit")
		stdin.Close()
		_ = cmd.Wait()
	}()
	port := regexp.MustCompile(`127\.0\.0\.1:\d+`)
	var lines []string
	sc := bufio.NewScanner(out)
	for len(lines) < n && sc.Scan() {
		lines = append(lines, port.ReplaceAllString(sc.Text(), "127.0.0.1:PORT"))
	}
	go func() { // what follows is not read: never block the listener
		for sc.Scan() {
		}
	}()
	return lines
}

// A quiet start: at normal verbosity one line per agent says it is
// listening, and the agents' own words come next; the subscription, its
// terms and the manifest are said only when they change what the user
// hears (before, six lines came before the demo agent said anything, and
// eighteen with three agents). testdata/start.golden holds the demo's
// first lines.
func TestQuietStart(t *testing.T) {
	t.Parallel()
	t.Run("demo", func(t *testing.T) {
		t.Parallel()
		lines := startLines(t, 3, "--demo")
		golden.Check(t, "testdata/start.golden", strings.Join(lines, "\n")+"\n")
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "Listening to ") || !strings.HasPrefix(lines[1], "Demo Assistant: ") {
			t.Errorf("the demo agent's first words are not on line 2:\n%s", strings.Join(lines, "\n"))
		}
	})
	t.Run("three agents", func(t *testing.T) {
		t.Parallel()
		lines := startLines(t, 5, "--demo", "--agents", "3")
		listening, content := 0, -1
		for i, l := range lines {
			switch {
			case strings.Contains(l, ": Listening to "):
				listening++
			case content < 0:
				content = i
			}
		}
		// An agent may connect after another has begun to speak: only
		// listening lines, at most one per agent, come before the first
		// agent's words, which are within the first 5 lines.
		if content < 0 || content > 3 || listening > 3 || listening < content {
			t.Errorf("want a line per agent saying it listens, and the first agent's words within 5 lines:\n%s", strings.Join(lines, "\n"))
		}
	})
	t.Run("terms said on request", func(t *testing.T) {
		t.Parallel()
		lines := startLines(t, 3, "--demo", "--verbosity", "detailed")
		all := strings.Join(lines, "\n")
		if !strings.Contains(all, "Subscribed to Demo Assistant.") {
			t.Errorf("--verbosity detailed does not say how the subscription was made:\n%s", all)
		}
	})
}

// terms and agents say each agent's terms in plain words on request, and
// agents counts "1 prompt waiting" (it said "1 prompts waiting" and the
// last terms line heard, before).
func TestTermsOnRequest(t *testing.T) {
	t.Parallel()
	_, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListener(t, "--plain", "--no-sign", url)
	r.waitOutput(t, "Confirmation needed, prompt 1")
	fmt.Fprintln(r.stdin, "terms")
	r.waitOutput(t, "Terms: the producer grants ")
	fmt.Fprintln(r.stdin, "agents")
	r.waitOutput(t, "1 prompt waiting; ")
	fmt.Fprintln(r.stdin, "quit")
	r.wait(t)
	if out := r.stdout(); strings.Contains(out, "prompts waiting") || strings.Contains(out, "Subscribed to") {
		t.Errorf("agents miscounts, or the start was not quiet:\n%s", out)
	}
}

// With standard input closed, a producer without a handshake is not said
// to apply each prompt's default at once: nothing can tell it, and the
// line says so (the reference producers waited out their timeouts).
func TestInputClosedWithoutHandshake(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(listenerBinary(t), "--demo", "--demo-quirks", "--demo-scenarios", "confirm", "--demo-speed", "0", "--no-time", "--plain", "--no-sign")
	cmd.Env = append(cmd.Environ(), "NO_COLOR=1") // standard input is /dev/null
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }() // its prompt would wait out its time
	sc := bufio.NewScanner(out)
	var lines []string
	for len(lines) < 3 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "Standard input is closed, so nobody can answer here. This producer takes no subscription, so it cannot be told: its prompts are shown and left unanswered.") || strings.Contains(all, "default decision at once") {
		t.Errorf("what standard input closed means for a producer without a handshake:\n%s", all)
	}
}
