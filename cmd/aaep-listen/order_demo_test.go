package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/demo"
)

// The demo at full speed with standard input closed says the same lines in
// the same order every run, stdout and stderr, every scenario included:
// "Listening to …" first, nothing about reconnecting at the producer's
// normal end, and the end said once. Nothing but the structure of the
// client orders them: a timer deciding the order would show as a
// difference between runs. Standard input is /dev/null, so the
// subscription says from the start that nobody can answer, and the
// producer applies each prompt's default without sending it (spec
// §5.3.1.4): nothing is left to timing.
func TestDemoOrderIsStable(t *testing.T) {
	t.Parallel()
	const runs = 50
	bin := listenerBinary(t)
	port := regexp.MustCompile(`127\.0\.0\.1:\d+`)
	outs := make([]string, runs)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2) // the machine is shared
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(bin, "--demo", "--demo-speed", "0", "--no-time", "--plain", "--no-sign")
			cmd.Env = append(cmd.Environ(), "NO_COLOR=1", "TZ=UTC")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr // standard input is /dev/null: closed at once
			if err := cmd.Run(); err != nil {
				t.Errorf("run %d: %v\n%s", i, err, stderr.String())
			}
			outs[i] = port.ReplaceAllString(stdout.String()+"--- stderr ---\n"+stderr.String(), "127.0.0.1:PORT")
		}()
	}
	wg.Wait()
	first := outs[0]
	lines := strings.Split(strings.TrimSpace(first), "\n")
	if !strings.HasPrefix(lines[0], "Listening to http://127.0.0.1:PORT.") {
		t.Errorf("the first line is %q, not Listening", lines[0])
	}
	if strings.Contains(first, "reconnecting") || strings.Contains(first, "Connection closed") {
		t.Errorf("the producer's normal end is told as a lost connection:\n%s", first)
	}
	if n := strings.Count(first, "The producer ended the stream."); n != 1 {
		t.Errorf("the end is said %d times:\n%s", n, first)
	}
	scenarios, err := demo.Pick(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		if !strings.Contains(first, sc.Agent.Name) {
			t.Errorf("scenario %s is not in the output:\n%s", sc.Name, first)
		}
	}
	for _, want := range []string{
		"Standard input is closed, so nobody can answer here: the subscription says so, and the producer applies each prompt's default decision at once.",
		"No go-ahead; the payment is off.", // confirm: its default, applied by the producer
		"Booking for 8 in the evening.",    // clarify: its default
	} {
		if !strings.Contains(first, want) {
			t.Errorf("the output lacks %q:\n%s", want, first)
		}
	}
	for i, out := range outs[1:] {
		if out != first {
			t.Fatalf("run %d differs from run 0:\n%s", i+1, lineDiff(first, out))
		}
	}
}

// lineDiff shows the first line where a and b differ, with context.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			lo := max(0, i-3)
			return fmt.Sprintf("run 0 from line %d:\n", lo+1) + strings.Join(al[lo:min(len(al), i+3)], "\n") +
				"\n\nthis run:\n" + strings.Join(bl[lo:min(len(bl), i+3)], "\n")
		}
	}
	return ""
}
