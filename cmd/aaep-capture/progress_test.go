package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/producer"
)

// slowProducer serves the demo scenarios at recorded speed, so a recording
// lasts several seconds.
func slowProducer(t *testing.T) string {
	t.Helper()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: all, Speed: 1, EndWhenDone: true, PromptTimeout: 200 * time.Millisecond})
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	return srv.URL
}

// In a real terminal (tmux) the progress line shows on standard error and is
// rewritten in place.
func TestProgressTerminal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	url := slowProducer(t)
	out := filepath.Join(t.TempDir(), "s.aaep")
	term := ttytest.Start(t, 150, 20, []string{"TERM=xterm-256color"},
		fmt.Sprintf("%s --endpoint %s -o %s --duration 4s", bin, url, out))
	// The line shows for a second at a time: what was written to the
	// terminal is looked at as well as the screen, which the looks at it
	// may miss on a busy machine (they did, 1 run in 20 under load).
	written := term.Written()
	isProgress := func(s string) bool {
		return strings.Contains(s, "Recording: ") && strings.Contains(s, "messages a second")
	}
	sawProgress := false
	screen, ended := term.Wait(30*time.Second, func(s string) bool {
		sawProgress = sawProgress || isProgress(s)
		return strings.Contains(s, "EXITED")
	})
	if !sawProgress && !isProgress(written()) {
		t.Fatalf("no progress line seen on the terminal:\n%s\nwritten to it:\n%q", screen, written())
	}
	if !ended || !strings.Contains(screen, "EXITED rc=0") || !strings.Contains(screen, "The --duration is over.") {
		t.Fatalf("the recording did not end as expected:\n%s", screen)
	}
	// The final message starts at the left margin: the progress line was cleared.
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.Index(l, "The --duration is over."); i > 0 && strings.TrimSpace(l[:i]) != "" {
			t.Errorf("the last message shares its line with something else: %q", l)
		}
	}
}

// When standard error is not a terminal, no progress is written at all:
// no carriage returns, only whole lines.
func TestProgressNotTerminal(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	url := slowProducer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--endpoint", url, "-o", filepath.Join(t.TempDir(), "s.aaep"), "--duration", "2500ms")
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	s := stderr.String()
	if strings.ContainsAny(s, "\r\x1b") || strings.Contains(s, "Recording: ") {
		t.Errorf("progress written to a pipe: %q", s)
	}
	if !strings.Contains(s, "The --duration is over.") {
		t.Errorf("stderr: %q", s)
	}
}
