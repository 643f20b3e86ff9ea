//go:build linux

package localagents

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// listening makes a socket at path that accepts connections and never
// says a word: enough for Ready, which only dials.
func listening(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
}

// nextAgent is the next agent, or fails the test when none comes: the
// limit only stops a broken test, nothing waits for it to pass.
func nextAgent(t *testing.T, agents <-chan Agent) Agent {
	t.Helper()
	select {
	case a, ok := <-agents:
		if !ok {
			t.Fatal("the agents ended early")
		}
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("no agent reported")
	}
	return Agent{}
}

// A socket's name gives its agent a label only as it is, and only one
// socket offered at a time has a label, in any case: "\x1b[0mbank.sock"
// (which sanitizes to "bank"), "ba\u200bnk.sock", "BANK.sock" and
// "bank.x" never take "bank" from bank.sock, whichever came first.
func TestReadyLabelsUnique(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(t.TempDir(), "aaep")
	changes, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	agents := Ready{}.Agents(ctx, changes)
	real := filepath.Join(dir, "bank.sock")
	// A name that sanitizes to "bank" before the real one: no label.
	listening(t, filepath.Join(dir, "\x1b[0mbank.sock"))
	if a := nextAgent(t, agents); a.Label != "" {
		t.Fatalf("%q took the label %q", a.Endpoint, a.Label)
	}
	listening(t, real)
	if a := nextAgent(t, agents); a.Label != "bank" || a.Endpoint != "unix:"+real {
		t.Fatalf("the real agent: %+v", a)
	}
	// Names alike after it, in case or extension: no label.
	for _, name := range []string{"ba\u200bnk.sock", "BANK.sock", "bank.x", "Bank.sock"} {
		listening(t, filepath.Join(dir, name))
		if a := nextAgent(t, agents); a.Label != "" {
			t.Errorf("%q took the label %q", a.Endpoint, a.Label)
		}
	}
}

// Sockets nobody listens on are dialled at once, Parallel at a time: each
// takes all its tries, and the 200 of them hold back no one more than the
// tries of Parallel sockets would. The first try of the first 16 waits
// until all 16 are being dialled together: dialled one after another,
// the first would wait for ever (until the test's limit).
func TestReadyDialsDeadSocketsTogether(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "aaep")
	changes, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	const dead, parallel = 200, 16
	for i := range dead {
		boundSocket(t, filepath.Join(dir, fmt.Sprintf("dead-%03d.sock", i)))
	}
	real := filepath.Join(dir, "zz-real.sock") // named to come last
	listening(t, real)
	var (
		mu       sync.Mutex
		together = map[string]bool{}
		all      = make(chan struct{})
	)
	r := Ready{Tries: 3, Wait: time.Millisecond, Parallel: parallel, OnRefused: func(path string, try int) {
		if try != 1 {
			return
		}
		mu.Lock()
		if len(together) < parallel {
			together[path] = true
			if len(together) == parallel {
				close(all)
			}
		}
		waits := together[path]
		mu.Unlock()
		if waits {
			select {
			case <-all:
			case <-ctx.Done():
			}
		}
	}}
	agents := r.Agents(ctx, changes)
	notes := 0
	for {
		a := nextAgent(t, agents)
		if a.Endpoint == "unix:"+real {
			if a.Label != "zz-real" {
				t.Errorf("the real agent: %+v", a)
			}
			break
		}
		if !strings.Contains(a.Note, "refused all 3 connections") {
			t.Fatalf("agent %+v", a)
		}
		notes++
	}
	if ctx.Err() != nil {
		t.Fatalf("the dead sockets were not dialled %d at once", parallel)
	}
	t.Logf("%d dead sockets said before the real agent", notes)
}
