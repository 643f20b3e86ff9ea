package record

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
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
		want     ProgressMode
	}{
		{false, false, env("TERM", "xterm"), ProgressOff},
		{true, true, env("TERM", "xterm"), ProgressOff},
		{true, false, env("TERM", "xterm"), ProgressRewrite},
		{true, false, env("TERM", "dumb"), ProgressLines},
		{true, false, env(), ProgressLines},
		{true, false, env("TERM", "xterm", "ACCESSIBLE", "1"), ProgressLines},
	} {
		if got := ProgressModeFor(tt.tty, tt.off, tt.env); got != tt.want {
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
	p := newProgress(&buf, ProgressRewrite, start)
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
	p = newProgress(&buf, ProgressLines, start)
	p.recorded([]byte(`{"session_id":"sess_1"}`))
	p.report(start.Add(time.Second))
	p.report(start.Add(time.Second))
	p.printf("Done.\n")
	if got := buf.String(); got != "Recording: 1 message, 1 session, 0 bytes, 1 messages a second, 1s.\nDone.\n" {
		t.Errorf("lines mode wrote %q", got)
	}
}
