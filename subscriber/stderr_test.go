package subscriber_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// A spawned producer's log lines on standard error are quiet statuses, not
// warnings, so no ID in them is read out before the agent's first event;
// a line that reports a problem is still a warning (before, every line was
// "warning, transport: Producer: …").
func TestProducerLogIsNotAWarning(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "producer.sh")
	// It stays until its standard input closes: its lines come before
	// the end, whatever the order the two pipes are read in.
	body := "#!/bin/sh\necho 'producer: aaep-term-1 subscribed as sub_42' >&2\necho 'error: the disk is full' >&2\ncat >/dev/null\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := subscriber.Start(ctx, "exec:"+script, subscriber.Config{Identity: session.Identity{ID: "test", Name: "test", Version: "1"}})
	defer c.Close()
	var quiet, warned []string
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("%v before the End", err)
		}
		switch {
		case u.Kind == subscriber.KindStatus && strings.Contains(u.Text, "sub_42"):
			if !u.Quiet {
				t.Errorf("a log line is not quiet: %s", u.Text)
			}
			quiet = append(quiet, u.Text)
		case u.Kind == subscriber.KindDiagnostic:
			warned = append(warned, u.Diagnostic.Message)
		}
		if len(quiet) > 0 && strings.Contains(strings.Join(warned, "\n"), "the disk is full") {
			go c.Close() // both told: the end may come
		}
		if u.Kind == subscriber.KindEnd {
			break
		}
	}
	if len(quiet) != 1 || !strings.HasPrefix(quiet[0], "The producer's log: ") {
		t.Errorf("the log line was told as %q", quiet)
	}
	all := strings.Join(warned, "\n")
	if strings.Contains(all, "sub_42") || !strings.Contains(all, "the disk is full") {
		t.Errorf("warnings:\n%s", all)
	}
}
