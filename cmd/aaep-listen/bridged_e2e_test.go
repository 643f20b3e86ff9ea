package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
)

// An agent served by aaep-bridge's package (acp.ServeAgent) is followed
// over SSE like any producer: tell gives it its task over AAEP (the
// agent-tasks extension), accept lets its tool run, and cancel cancels
// the next task, whose permission request is answered cancelled.
func TestListenBridgedAgent(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := acp.ServeAgent(context.Background(), []string{exe, "-test.run=^$"},
		acp.Options{Name: "code", Dir: dir, Env: append(os.Environ(), acptest.Env+"=happy")},
		acp.Where{Addr: "127.0.0.1:0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	var endpoint string
	for _, u := range s.URLs {
		if strings.HasPrefix(u, "http://") {
			endpoint = u
		}
	}
	r := startScripted(t, t.TempDir(), "", "--plain", "--no-time", endpoint)
	r.wait(t, "Listening to")
	// "Listening to" may come before the producer's acceptance is taken,
	// and with it that the producer takes tasks: ask for the terms until
	// they are known.
	for n := 1; !strings.Contains(r.text(), "the producer grants"); n++ {
		r.typeLine(t, "terms")
		r.waitCount(t, "Terms:", n)
	}
	r.typeLine(t, "tell write the proof file")
	r.acceptThenCancel(t, dir)
}
