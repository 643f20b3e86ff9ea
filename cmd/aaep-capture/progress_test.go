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

func TestProgressMode(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tt := range []struct {
		tty, off bool
		env      func(string) string
		want     progressMode
	}{
		{false, false, env("TERM", "xterm"), progressOff},
		{true, true, env("TERM", "xterm"), progressOff},
		{true, false, env("TERM", "xterm"), progressRewrite},
		{true, false, env("TERM", "dumb"), progressLines},
		{true, false, env(), progressLines},
		{true, false, env("TERM", "xterm", "ACCESSIBLE", "1"), progressLines},
	} {
		if got := progressModeFor(tt.tty, tt.off, tt.env); got != tt.want {
			t.Errorf("tty %v, off %v: mode %d, want %d", tt.tty, tt.off, got, tt.want)
		}
	}
}

// The rewritten line is cleared before any message, so messages start at
// the left margin; lines mode appends whole lines only, and nothing is
// repeated when nothing changed.
func TestProgressReport(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := newProgress(&buf, progressRewrite, start)
	w := p.counting(&bytes.Buffer{})
	size := 0
	for i := range 3 {
		msg := fmt.Sprintf(`{"type":"aaep:agent.state.changed","session_id":"sess_%d"}`, i%2)
		n, _ := w.Write([]byte(msg + "\n"))
		size += n
		p.recorded([]byte(msg))
	}
	p.report(start.Add(2 * time.Second))
	p.printf("A message.\n")
	line := fmt.Sprintf("Recording: 3 messages, 2 sessions, %d bytes, 2 messages a second, 2s.", size)
	want := "\r" + line + "\r" + strings.Repeat(" ", len(line)) + "\rA message.\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}

	buf.Reset()
	p = newProgress(&buf, progressLines, start)
	p.recorded([]byte(`{"session_id":"sess_1"}`))
	p.report(start.Add(time.Second))
	p.report(start.Add(time.Second))
	p.printf("Done.\n")
	if got := buf.String(); got != "Recording: 1 message, 1 session, 0 bytes, 1 messages a second, 1s.\nDone.\n" {
		t.Errorf("lines mode wrote %q", got)
	}
}

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
	bin := ttytest.Build(t, ".", "aaep-capture")
	url := slowProducer(t)
	out := filepath.Join(t.TempDir(), "s.aaep")
	term := ttytest.Start(t, 150, 20, []string{"TERM=xterm-256color"},
		fmt.Sprintf("%s --endpoint %s -o %s --duration 4s", bin, url, out))
	sawProgress := false
	screen, ended := term.Wait(30*time.Second, func(s string) bool {
		if strings.Contains(s, "Recording: ") && strings.Contains(s, "messages a second") {
			sawProgress = true
		}
		return strings.Contains(s, "EXITED")
	})
	if !sawProgress {
		t.Fatalf("no progress line seen on the terminal:\n%s", screen)
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
	bin := ttytest.Build(t, ".", "aaep-capture")
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
