package acp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// rig is one scripted agent behind a bridge, heard through the real
// subscriber engine and announcer, in plain lines.
type rig struct {
	dir    string
	bridge *acp.Bridge
	c      *subscriber.Client

	mu      sync.Mutex
	lines   bytes.Buffer // announced lines and diagnostics
	events  []*protocol.Event
	prompts []*session.Prompt
	invalid []string // diagnostics about invalid events
	changed chan struct{}
	ended   chan struct{}
}

// agentCommand is the acp: endpoint that runs this test binary as the
// scripted agent.
func agentCommand(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return "acp:'" + exe + "' -test.run=^$"
}

func start(t *testing.T, script string, opts acp.Options) *rig {
	t.Helper()
	opts.Env = append(os.Environ(), acptest.Env+"="+script)
	if opts.Name == "" {
		opts.Name = "code"
	}
	return startEndpoint(t, agentCommand(t), opts)
}

// startEndpoint runs the agent endpoint names in a fresh working folder;
// what is announced goes to sinks too (speech, braille).
func startEndpoint(t *testing.T, endpoint string, opts acp.Options, sinks ...announce.Sink) *rig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &rig{dir: t.TempDir(), changed: make(chan struct{}, 1), ended: make(chan struct{})}
	opts.Dir = r.dir
	r.bridge = acp.New(opts)
	r.c = subscriber.Start(ctx, endpoint, subscriber.Config{
		Identity:  session.Identity{ID: "acp-test", Name: "acp-test", Version: "1"},
		Terms:     session.Terms{CanConfirm: true, CanClarify: true},
		Transport: transport.Options{ACP: r.bridge.Dial},
	})
	t.Cleanup(func() {
		r.c.Close()
		acptest.Wait(t, "the subscription, once closed,", r.ended)
	})
	w := line.NewWriter(&lockedWriter{r}, &lockedWriter{r}, line.WriterOptions{NoTime: true})
	ann := announce.New(announce.Config{}, append([]announce.Sink{w}, sinks...)...)
	go func() {
		defer close(r.ended)
		for {
			u, err := r.c.Next(ctx)
			if err != nil {
				return
			}
			// The sinks (speech among them) are called without r.mu: a
			// slow one must not keep a waiting test from what was said.
			// A delivery is recorded once its lines are written, so that a
			// test that has a prompt finds what was said of it.
			switch u.Kind {
			case subscriber.KindDelivery:
				ann.Deliver(u.Delivery)
			case subscriber.KindDiagnostic:
				if strings.Contains(u.Diagnostic.Code, "invalid") || strings.Contains(u.Diagnostic.Code, "schema") {
					r.mu.Lock()
					r.invalid = append(r.invalid, u.Diagnostic.Code+": "+u.Diagnostic.Message)
					r.mu.Unlock()
				}
				ann.Diagnose(u.Diagnostic)
			case subscriber.KindStatus, subscriber.KindReply:
				r.say(u.Text + "\n")
			case subscriber.KindEnd:
				r.say(u.Text + "\n")
				if u.Err != nil {
					r.say("Error: " + u.Err.Error() + "\n")
				}
			case subscriber.KindBreak:
				ann.Flush(u.At)
			}
			w.Flush()
			if u.Kind == subscriber.KindDelivery {
				r.mu.Lock()
				if ev := u.Delivery.Event; ev != nil && u.Delivery.Kind == session.KindEvent {
					r.events = append(r.events, ev)
				}
				if p := u.Delivery.Prompt; p != nil && !slices.ContainsFunc(r.prompts, func(q *session.Prompt) bool { return q.Number == p.Number }) {
					r.prompts = append(r.prompts, p)
				}
				r.mu.Unlock()
			}
			select {
			case r.changed <- struct{}{}:
			default:
			}
		}
	}()
	return r
}

type lockedWriter struct{ r *rig }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.lines.Write(p)
}

// say adds s to what was said.
func (r *rig) say(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines.WriteString(s)
}

// text returns everything said so far.
func (r *rig) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lines.String()
}

// waitFor waits until ok holds of what was said, for as long as
// acptest.Guard lets it.
func (r *rig) waitFor(t *testing.T, what string, ok func(string) bool) {
	t.Helper()
	guard := acptest.Guard(t)
	defer guard.Stop()
	for {
		if ok(r.text()) {
			return
		}
		select {
		case <-r.changed:
		case <-r.ended:
			if ok(r.text()) {
				return
			}
			t.Fatalf("the run ended before %s:\n%s", what, r.text())
		case <-guard.C:
			acptest.Stuck(t, "never %s:\n%s", what, r.text())
		}
	}
}

func (r *rig) waitText(t *testing.T, s string) {
	t.Helper()
	r.waitFor(t, "said "+s, func(all string) bool { return strings.Contains(all, s) })
}

// prompt returns the number of the first prompt offered.
func (r *rig) prompt(t *testing.T) int {
	t.Helper()
	return r.nthPrompt(t, 1).Number
}

// nthPrompt returns the n-th prompt offered, counting from 1.
func (r *rig) nthPrompt(t *testing.T, n int) *session.Prompt {
	t.Helper()
	r.waitFor(t, fmt.Sprintf("prompt %d", n), func(string) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.prompts) >= n
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prompts[n-1]
}

func (r *rig) file(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	return string(b), err == nil
}

// checkValid fails the test if the engine found an event invalid.
func (r *rig) checkValid(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.invalid) > 0 {
		t.Errorf("invalid events: %v", r.invalid)
	}
}
