package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/internal/localagents"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// follower is one AAEP subscriber of a served agent: the real subscriber
// engine over a real binding, remembering the events and prompts it got.
type follower struct {
	c       *subscriber.Client
	mu      sync.Mutex
	types   []string
	prompts []*session.Prompt
	refused []string // what the producer said of each task it refused
	started []string // each session.started's words
	notes   []string // the engine's diagnostics, as code: message
	changed chan struct{}
	ended   chan struct{}
}

// follow subscribes to endpoint, asking for tasks.
func follow(t *testing.T, endpoint string) *follower {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{changed: make(chan struct{}, 1), ended: make(chan struct{})}
	f.c = subscriber.Start(ctx, endpoint, subscriber.Config{
		Identity: session.Identity{ID: "serve-test", Name: "serve-test", Version: "1"},
		Terms:    session.Terms{CanConfirm: true, CanClarify: true},
		Tasks:    true,
	})
	t.Cleanup(func() {
		f.c.Close()
		cancel()
		acptest.Wait(t, "the subscription, once closed,", f.ended)
	})
	go func() {
		defer close(f.ended)
		for {
			u, err := f.c.Next(ctx)
			if err != nil {
				return
			}
			f.mu.Lock()
			if u.Kind == subscriber.KindDelivery {
				if ev := u.Delivery.Event; ev != nil && u.Delivery.Kind == session.KindEvent {
					f.types = append(f.types, ev.Type)
					if ev.Type == protocol.TypeSessionStarted {
						f.started = append(f.started, ev.SummaryNormal.Line())
					}
				}
				if p := u.Delivery.Prompt; p != nil {
					f.prompts = append(f.prompts, p)
				}
			}
			if u.Kind == subscriber.KindDiagnostic {
				f.notes = append(f.notes, u.Diagnostic.Code+": "+u.Diagnostic.Message)
			}
			if u.Kind == subscriber.KindStatus && u.Status == subscriber.StatusRefused {
				f.refused = append(f.refused, u.Text)
			}
			f.mu.Unlock()
			select {
			case f.changed <- struct{}{}:
			default:
			}
		}
	}()
	return f
}

// waitFor waits until ok holds, checking it at each update, for as long
// as acptest.Guard lets it.
func (f *follower) waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	guard := acptest.Guard(t)
	defer guard.Stop()
	for !ok() {
		select {
		case <-f.changed:
		case <-f.ended:
			if !ok() {
				t.Fatalf("the subscription ended before %s: %v", what, f.seen())
			}
		case <-guard.C:
			acptest.Stuck(t, "never %s: %v", what, f.seen())
		}
	}
}

func (f *follower) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.types...)
}

func (f *follower) has(typ string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.types {
		if t == typ {
			return true
		}
	}
	return false
}

// asked reports whether a confirmation was offered.
func (f *follower) asked() bool { return f.askedAnew("") }

// askedAnew reports whether a confirmation other than the one of token was
// offered (a subscriber that comes while a prompt is open is offered it).
func (f *follower) askedAnew(token string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.prompts {
		if p.Event.ReplyToken != token {
			return true
		}
	}
	return false
}

// refusals is how many tasks the producer refused.
func (f *follower) refusals() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.refused)
}

// heardWhole fails t unless the subscriber heard the session from its
// start: the first event it got is session.started, whose words are
// start's, and the engine never said it joined mid-way.
func (f *follower) heardWhole(t *testing.T, start string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.types) == 0 || f.types[0] != protocol.TypeSessionStarted {
		t.Errorf("the first events were %v, want %s first", f.types, protocol.TypeSessionStarted)
	}
	if len(f.started) == 0 || !strings.HasPrefix(f.started[0], start) {
		t.Errorf("the sessions started with %q, want the first to begin %q", f.started, start)
	}
	for _, n := range f.notes {
		if strings.HasPrefix(n, "joined:") {
			t.Errorf("the subscriber joined the session mid-way: %s", n)
		}
	}
}

// prompt waits for the first confirmation offered and returns its number.
func (f *follower) prompt(t *testing.T) int {
	t.Helper()
	f.waitFor(t, "a confirmation", f.asked)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.prompts[0].Number
}

// tell gives the agent task over AAEP, once the subscription says the
// producer takes tasks.
func (f *follower) tell(t *testing.T, task string) {
	t.Helper()
	f.waitFor(t, "the producer said it takes tasks", f.c.TakesTasks)
	if err := f.c.Tell(acptest.Context(t), task); err != nil {
		t.Fatal(err)
	}
}

// serveScripted serves the scripted agent playing script, named code, in
// a fresh working folder, on loopback and in a local agents' directory.
func serveScripted(t *testing.T, script string) (s *acp.Served, dir, local string) {
	t.Helper()
	return serveScriptedWith(t, script, acp.Options{})
}

// serveScriptedWith is serveScripted with opts besides its name and the
// agent's environment.
func serveScriptedWith(t *testing.T, script string, opts acp.Options) (s *acp.Served, dir, local string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	opts.Name, opts.Env = "code", append(os.Environ(), acptest.Env+"="+script)
	return serveAgent(t, []string{exe, "-test.run=^$"}, opts)
}

func serveAgent(t *testing.T, argv []string, opts acp.Options) (s *acp.Served, dir, local string) {
	t.Helper()
	dir, local = t.TempDir(), filepath.Join(t.TempDir(), "aaep")
	if opts.Dir == "" {
		opts.Dir = dir
	}
	var mu sync.Mutex
	over := false // the agent's last words may come after the test
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !over {
			t.Logf(format, args...)
		}
	}
	s, err := acp.ServeAgent(context.Background(), argv, opts, acp.Where{Addr: "127.0.0.1:0", LocalDir: local}, logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		mu.Lock()
		over = true
		mu.Unlock()
	})
	return s, opts.Dir, local
}

// endpointOf is the served endpoint of the binding that starts with
// prefix.
func endpointOf(t *testing.T, s *acp.Served, prefix string) string {
	t.Helper()
	for _, u := range s.URLs {
		if strings.HasPrefix(u, prefix) {
			return u
		}
	}
	t.Fatalf("no %s endpoint among %v", prefix, s.URLs)
	return ""
}

// localEndpoint finds the served agent as aaep-listen --local does: a
// socket in the local agents' directory, labelled by its name.
func localEndpoint(t *testing.T, dir, label string) string {
	t.Helper()
	ctx := acptest.Context(t)
	changes, err := localagents.Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for a := range (localagents.Ready{}).Agents(ctx, changes) {
		if a.Label == label {
			return a.Endpoint
		}
		t.Logf("another agent: %+v", a)
	}
	t.Fatalf("no local agent %s", label)
	return ""
}

// A served agent takes its task over AAEP (agtask:task) and asks before
// it acts; the subscriber's accept runs the tool, its reject runs
// nothing: over SSE, and over the Unix socket aaep-listen --local finds.
func TestServedAgent(t *testing.T) {
	t.Parallel()
	for _, binding := range []string{"http", "unix"} {
		for _, decision := range []string{protocol.DecisionAccept, protocol.DecisionReject} {
			t.Run(binding+"/"+decision, func(t *testing.T) {
				t.Parallel()
				s, dir, local := serveScripted(t, "happy")
				endpoint := endpointOf(t, s, "http://")
				if binding == "unix" {
					endpoint = localEndpoint(t, local, "code")
				}
				if transport.BindingOf(endpoint) == transport.BindingACP {
					t.Fatalf("endpoint %s", endpoint)
				}
				f := follow(t, endpoint)
				f.tell(t, "write the proof file")
				n := f.prompt(t)
				if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err == nil {
					t.Fatal("the tool ran before the answer")
				}
				if err := f.c.Confirm(acptest.Context(t), n, decision); err != nil {
					t.Fatal(err)
				}
				f.waitFor(t, "the task ended", func() bool { return f.has(protocol.TypeSessionCompleted) })
				f.heardWhole(t, "You gave code a task: write the proof file")
				_, err := os.Stat(filepath.Join(dir, acptest.ProofFile))
				if ran := err == nil; ran != (decision == protocol.DecisionAccept) {
					t.Errorf("%s: the tool ran: %v", decision, ran)
				}
				out, _ := os.ReadFile(filepath.Join(dir, acptest.OutcomeFile))
				want := map[string]string{protocol.DecisionAccept: `"optionId":"yes"`, protocol.DecisionReject: `"optionId":"no"`}[decision]
				if !strings.Contains(string(out), want) {
					t.Errorf("the agent was answered %q, want %s", out, want)
				}
			})
		}
	}
}

// A served agent opens its session at the first task, not when it is
// ready, before anyone can subscribe; so its subscribers hear that its
// mode acts without asking them as the task's session starts.
func TestServedModeWarning(t *testing.T) {
	t.Parallel()
	s, _, _ := serveScriptedWith(t, "happy", acp.Options{Mode: "auto"})
	f := follow(t, endpointOf(t, s, "http://"))
	f.tell(t, "write the proof file")
	n := f.prompt(t) // auto asks too, in the scripted agent
	if err := f.c.Confirm(acptest.Context(t), n, protocol.DecisionReject); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "the task ended", func() bool { return f.has(protocol.TypeSessionCompleted) })
	f.heardWhole(t, "Warning: in mode auto the agent acts without asking you. You gave code a task: write the proof file")
}

// A served agent's task from the command line (Options.Task, aaep-bridge
// --task) waits for its first subscriber: one that comes after the agent
// is ready hears the task's session from its start, not "joined mid-way".
// Before, the task was given at once and its first events went to nobody.
func TestServedTaskWaitsForItsSubscriber(t *testing.T) {
	t.Parallel()
	s, dir, _ := serveScriptedWith(t, "happy", acp.Options{Task: "write the proof file"})
	f := follow(t, endpointOf(t, s, "http://"))
	n := f.prompt(t)
	if err := f.c.Confirm(acptest.Context(t), n, protocol.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	f.waitFor(t, "the task ended", func() bool { return f.has(protocol.TypeSessionCompleted) })
	f.heardWhole(t, "You gave code a task: write the proof file")
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err != nil {
		t.Errorf("no proof file after the accept: %v", err)
	}
}

// A permission request waits while a subscriber who can answer it is
// left: the first of two leaving changes nothing, the second's accept
// runs the tool.
func TestServedPromptOutlivesOneSubscriber(t *testing.T) {
	t.Parallel()
	s, dir, _ := serveScripted(t, "happy")
	first := follow(t, endpointOf(t, s, "http://"))
	second := follow(t, endpointOf(t, s, "unix:"))
	first.waitFor(t, "the producer said it takes tasks", first.c.TakesTasks)
	second.waitFor(t, "the producer said it takes tasks", second.c.TakesTasks)
	first.tell(t, "write the proof file")
	first.prompt(t)
	n := second.prompt(t)
	first.c.Close()
	acptest.Wait(t, "the first subscription, once closed,", first.ended)
	if err := second.c.Confirm(acptest.Context(t), n, protocol.DecisionAccept); err != nil {
		t.Fatal(err)
	}
	second.waitFor(t, "the task ended", func() bool { return second.has(protocol.TypeSessionCompleted) })
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err != nil {
		t.Errorf("no proof file after the second subscriber's accept: %v", err)
	}
}

// Once nobody who can answer a permission request is subscribed, its
// default applies at once (spec §5.8.2): the agent is told no, so it
// takes the next task, and nothing ran.
func TestServedPromptRejectedWhenNobodyIsLeft(t *testing.T) {
	t.Parallel()
	s, dir, _ := serveScripted(t, "happy")
	first := follow(t, endpointOf(t, s, "http://"))
	first.tell(t, "write the proof file")
	first.prompt(t)
	first.mu.Lock()
	old := first.prompts[0].Event.ReplyToken
	first.mu.Unlock()
	first.c.Close()
	acptest.Wait(t, "the first subscription, once closed,", first.ended)
	second := follow(t, endpointOf(t, s, "unix:"))
	second.tell(t, "write the proof file")
	// The agent may not have ended the turn in which it was told no: a
	// task given before that end is refused, and the refusal said. The
	// end then comes to this subscriber too, and the task is given again.
	// (It may also be offered the first request, if that was still open.)
	asked := func() bool { return second.askedAnew(old) }
	second.waitFor(t, "a new confirmation, or the task refused", func() bool { return asked() || second.refusals() > 0 })
	if !asked() {
		t.Log("the busy agent refused the task; given again after its end")
		second.waitFor(t, "the first task's end", func() bool {
			return second.has(protocol.TypeSessionCompleted) || second.has(protocol.TypeSessionCancelled) || second.has(protocol.TypeSessionErrored)
		})
		second.tell(t, "write the proof file")
	}
	second.waitFor(t, "a new confirmation", asked) // the agent asks again: its first request was answered
	out, err := os.ReadFile(filepath.Join(dir, acptest.OutcomeFile))
	if err != nil {
		t.Fatal(err)
	}
	answer, _, _ := strings.Cut(string(out), "\n")
	if !strings.Contains(answer, `"optionId":"no"`) { // the script's reject_once
		t.Errorf("the request left by its only subscriber was answered %s, want its reject_once option", answer)
	}
	if _, err := os.Stat(filepath.Join(dir, acptest.ProofFile)); err == nil {
		t.Error("the tool ran although nobody accepted")
	}
}

// The real Gemini CLI, served: its task comes over AAEP, and a
// subscriber over SSE answers its permission request: accept runs the
// command (the file exists), reject runs nothing.
func TestServedGeminiCLI(t *testing.T) {
	t.Parallel()
	for _, decision := range []string{protocol.DecisionAccept, protocol.DecisionReject} {
		t.Run(decision, func(t *testing.T) {
			t.Parallel()
			g := gemini(t)
			argv, err := transport.SplitCommand(strings.TrimPrefix(g.Endpoint, "acp:"))
			if err != nil {
				t.Fatal(err)
			}
			s, dir, _ := serveAgent(t, argv, acp.Options{Name: "gemini", Env: g.Env})
			f := follow(t, endpointOf(t, s, "http://"))
			f.tell(t, "write the proof file")
			n := f.prompt(t)
			if err := f.c.Confirm(acptest.Context(t), n, decision); err != nil {
				t.Fatal(err)
			}
			f.waitFor(t, "the task ended", func() bool { return f.has(protocol.TypeSessionCompleted) })
			proof, err := os.ReadFile(filepath.Join(dir, "proof.txt"))
			switch {
			case decision == protocol.DecisionAccept && string(proof) != "ok\n":
				t.Errorf("proof file %q (%v) after accept", proof, err)
			case decision == protocol.DecisionReject && err == nil:
				t.Error("the command ran after reject")
			}
		})
	}
}
