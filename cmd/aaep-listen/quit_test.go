package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
)

// Quitting (quit, Ctrl-C) with a confirmation pending. In the deployed
// layout there is no subscription to close: the producer still waits, so
// the prompt is told as left unanswered, never as expired with its default
// decision, and the audit log says left-unanswered. With a subscription that
// we close, the producer applies the default, and the listener says so:
// you quit, not the prompt expired.
func TestQuitWithPromptPending(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		quirks bool // the deployed layout: no handshake
		signal bool // Ctrl-C instead of quit
	}{
		{"deployed layout, quit", true, false},
		{"deployed layout, Ctrl-C", true, true},
		{"subscription closed, quit", false, false},
		{"subscription closed, Ctrl-C", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "audit.jsonl")
			p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), Quirks: tc.quirks})
			r := startListener(t, "--plain", "--no-sign", "--audit", log, url)
			r.waitOutput(t, "Confirmation needed, prompt 1")
			if tc.signal {
				if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			} else {
				fmt.Fprintln(r.stdin, "quit")
			}
			r.wait(t)
			out := r.stdout()
			t.Logf("output:\n%s", out)
			var what []string
			for _, rec := range readAudit(t, log) {
				what = append(what, rec.What)
			}
			if tc.quirks {
				if !strings.Contains(out, "Prompt 1 is left unanswered") || !strings.Contains(out, "The agent is still waiting for an answer") {
					t.Errorf("not told the prompt is left unanswered:\n%s", out)
				}
				if strings.Contains(out, "expired") || strings.Contains(out, "default decision applies") {
					t.Errorf("told the prompt expired although the producer still waits:\n%s", out)
				}
				if got := strings.Join(what, ","); got != "prompt,left-unanswered" {
					t.Errorf("audit log: %s", got)
				}
				if outs := p.Outcomes(); len(outs) != 0 {
					t.Errorf("the producer settled the prompt: %+v", outs)
				}
				return
			}
			// Quitting is not the prompt's time running out.
			if !strings.Contains(out, "You quit before answering prompt 1") || !strings.Contains(out, "The producer was told the subscription closed, so the agent will reject") {
				t.Errorf("not told that quitting lets the default apply:\n%s", out)
			}
			if strings.Contains(out, "expired") {
				t.Errorf("told the prompt expired although the user quit:\n%s", out)
			}
			if got := strings.Join(what, ","); got != "prompt,quit" {
				t.Errorf("audit log: %s", got)
			}
			// The producer applies the default once the subscription closes.
			if outs := waitOutcomes(t, p, 1); len(outs) != 1 || outs[0].Resolution != producer.TimedOut {
				t.Errorf("producer outcomes %+v, want the default applied", outs)
			}
		})
	}
}
