package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
)

// An agent served by aaep-bridge's package (acp.ServeAgent) is followed
// over SSE and over its Unix socket like any producer: tell gives it its
// task over AAEP (the agent-tasks extension), a second task while it
// works is refused in the same words on both, accept lets its tool run,
// and cancel cancels the next task, whose permission request is answered
// cancelled. Each task's session is heard from its start.
func TestListenBridgedAgent(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, binding := range []string{"http://", "unix:"} {
		t.Run(strings.TrimRight(binding, ":/"), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s, err := acp.ServeAgent(context.Background(), []string{exe, "-test.run=^$"},
				acp.Options{Name: "code", Dir: dir, Env: append(os.Environ(), acptest.Env+"=happy")},
				acp.Where{Addr: "127.0.0.1:0", LocalDir: filepath.Join(t.TempDir(), "aaep")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			var endpoint string
			for _, u := range s.URLs {
				if strings.HasPrefix(u, binding) {
					endpoint = u
				}
			}
			r := startScripted(t, t.TempDir(), "", "--plain", "--no-time", endpoint)
			r.wait(t, "Listening to")
			// "Listening to" may come before the producer's acceptance is
			// taken, and with it that the producer takes tasks: ask for the
			// terms until they are known.
			for n := 1; !strings.Contains(r.text(), "the producer grants"); n++ {
				r.typeLine(t, "terms")
				r.waitCount(t, "Terms:", n)
			}
			r.typeLine(t, "tell write the proof file")
			r.wait(t, "Confirmation needed, prompt 1")
			r.typeLine(t, "tell something else")
			r.wait(t, "The producer refused your task. It says: code is still working on a task; cancel it or wait for its end.")
			r.acceptThenCancel(t, dir)
			// The agent's sessions open at its tasks, so the listener
			// hears each from its start.
			if out := r.text(); !strings.Contains(out, "You gave code a task: write the proof file") || strings.Contains(out, "Joined session") {
				t.Errorf("a task's session was not heard from its start:\n%s", out)
			}
		})
	}
}
