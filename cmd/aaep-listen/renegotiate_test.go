package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// logBook collects a producer's log lines.
type logBook struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBook) logf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, fmt.Sprintf(format, args...))
}

func (b *logBook) has(s string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, l := range b.lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

func (b *logBook) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !b.has(s) {
		if time.Now().After(deadline) {
			b.mu.Lock()
			defer b.mu.Unlock()
			t.Fatalf("the producer never logged %q:\n%s", s, strings.Join(b.lines, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Over every binding that negotiates: the handshake, events, an answer to a
// confirmation, a renegotiation typed as "set rate 3", and "quit", which
// closes the subscription; a question still waiting is announced with the
// default that applies, and the producer, told of the close, settles it.
func TestRenegotiateAndCloseEveryBinding(t *testing.T) {
	t.Parallel()
	for _, binding := range []string{"sse", "websocket", "unix", "grpc"} {
		t.Run(binding, func(t *testing.T) {
			var log logBook
			p := producer.New(producer.Options{Scenarios: scenarios(t, "confirm", "clarify"), Logf: log.logf, EndWhenDone: true})
			srv := httptest.NewServer(p)
			t.Cleanup(func() { p.Close(); srv.Close() })
			url := srv.URL
			args := []string{"--plain", "--no-sign", "--rate", "50"}
			switch binding {
			case "sse":
				args = append(args, "--layout", "spec")
			case "websocket":
				url = "ws" + strings.TrimPrefix(url, "http") + protocol.PathWebSocket
			case "unix":
				path := filepath.Join(t.TempDir(), "p.sock")
				ln, err := producer.ListenUnix(path)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				go func() { _ = p.ServeUnix(ctx, ln) }()
				t.Cleanup(cancel)
				url = "unix:" + path
			case "grpc":
				url = "grpc://" + serveGRPC(t, p.GRPCServer())
			}
			r := startListener(t, append(args, url)...)
			r.waitOutput(t, "Listening to ")
			r.waitOutput(t, "Confirmation needed, prompt 1")
			fmt.Fprintln(r.stdin, "set rate 3")
			r.waitOutput(t, "Asked the producer to set rate to 3.")
			r.waitOutput(t, "The producer accepted the new terms.")
			log.waitFor(t, "renegotiated")
			fmt.Fprintln(r.stdin, "accept 1\nyes")
			r.waitOutput(t, "Question, prompt 2")
			fmt.Fprintln(r.stdin, "quit")
			r.wait(t)
			log.waitFor(t, "closed")
			out := r.stdout()
			if !strings.Contains(out, "You quit before answering prompt 2") || !strings.Contains(out, "so the agent will use the answer") {
				t.Errorf("the waiting question's default is not announced:\n%s", out)
			}
			outs := waitOutcomes(t, p, 2)
			if outs[0].Resolution != producer.Accepted || outs[1].Resolution != producer.TimedOut {
				t.Errorf("producer outcomes %+v, want the confirmation accepted and the question's default applied on close", outs)
			}
			if strings.Contains(r.stderr(), "breaks the negotiation rules") {
				t.Errorf("the producer's honest terms were called broken:\n%s", r.stderr())
			}
		})
	}
}

// waitOutcomes waits until p has settled n prompts.
func waitOutcomes(t *testing.T, p *producer.Producer, n int) []producer.Outcome {
	t.Helper()
	// The bound is the test's last resort, not what it waits on.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	outs, err := p.WaitOutcomes(ctx, n)
	if err != nil {
		t.Fatalf("the producer settled %d prompts, want %d: %+v", len(outs), n, outs)
	}
	return outs
}

// SIGTERM closes the subscription like quit: the producer is told, and
// applies the default decision of the confirmation still waiting; the
// listener announces that default.
func TestSIGTERMClosesSubscription(t *testing.T) {
	t.Parallel()
	var log logBook
	p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), Logf: log.logf})
	r := startListener(t, "--plain", "--no-sign", "ws"+strings.TrimPrefix(url, "http")+protocol.PathWebSocket)
	r.waitOutput(t, "Confirmation needed, prompt 1")
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	log.waitFor(t, "closed")
	if outs := waitOutcomes(t, p, 1); outs[0].Resolution != producer.TimedOut || outs[0].Decision != "reject" {
		t.Errorf("producer outcomes %+v, want the default reject applied", outs)
	}
	if out := r.stdout(); !strings.Contains(out, "You quit before answering prompt 1") || !strings.Contains(out, "so the agent will reject") {
		t.Errorf("the default is not announced:\n%s", out)
	}
}

// Over stdio (a producer the listener starts): renegotiation is
// aaep.renegotiate, and quit sends aaep.close, after which the waiting
// confirmation is announced with its default.
func TestRenegotiateAndCloseStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childProducerEnv, "1")
	r := startListener(t, "--plain", "--no-sign", "--rate", "50", "--exec", exe, "-test.run=^$")
	r.waitOutput(t, "Confirmation needed, prompt 1")
	fmt.Fprintln(r.stdin, "set verbosity verbose")
	r.waitOutput(t, "The producer accepted the new terms.")
	r.waitOutput(t, "The producer notes: Events are written at normal verbosity only.")
	// A second change that leaves the notes as they were does not repeat them.
	fmt.Fprintln(r.stdin, "set verbosity detailed")
	r.waitOutputCount(t, "The producer accepted the new terms", 2)
	fmt.Fprintln(r.stdin, "quit")
	r.wait(t)
	if n := strings.Count(r.stdout(), "Events are written at normal verbosity only."); n != 1 {
		t.Errorf("the same notes were told %d times:\n%s", n, r.stdout())
	}
	if out := r.stdout(); !strings.Contains(out, "You quit before answering prompt 1") || !strings.Contains(out, "so the agent will reject") {
		t.Errorf("the default is not announced:\n%s", out)
	}
	if n := strings.Count(r.stdout(), "Producer sends streamed output in pieces"); n > 1 { // quiet at the start: said at most once
		t.Errorf("a difference already told was told %d times:\n%s", n, r.stdout())
	}
	if strings.Contains(r.stderr(), "Could not tell the producer") {
		t.Errorf("the close did not go out:\n%s", r.stderr())
	}
}

// A producer that refuses new terms ends the subscription (spec §5.7): the
// listener says why and stops.
func TestRenegotiationRefused(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	p := &scriptedProducer{
		answers: []func(map[string]any) (int, string){acceptance},
		stream: func(w io.Writer) {
			sseEvent(w, 0, "agent.session.started", "normal", "Counting sheep.", `,"request_text":"Count."`)
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
		},
		reply: func(body string) (int, string) {
			if !strings.Contains(body, `"subscription.renegotiate"`) {
				return http.StatusAccepted, `{}`
			}
			return http.StatusBadRequest, `{"type":"subscription.rejected","reason_code":"capabilities_incompatible","reason_message":"Two a second is too slow for me."}`
		},
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	defer close(release) // before Close, which waits for the open stream
	r := startListener(t, "--plain", "--no-sign", "--layout", "spec", srv.URL)
	r.waitOutput(t, "Counting sheep.")
	fmt.Fprintln(r.stdin, "set rate 2")
	r.wait(t)
	want := "The producer refused the new terms, which ends the subscription: it cannot meet the requested capabilities. It says: Two a second is too slow for me."
	if !strings.Contains(r.stdout(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout())
	}
}

// On the deployed layout there is no subscription to renegotiate: the user
// is told so, and nothing is sent.
func TestRenegotiateWithoutHandshake(t *testing.T) {
	t.Parallel()
	_, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), Quirks: true})
	r := startListener(t, "--plain", "--no-sign", url)
	r.waitOutput(t, "Confirmation needed")
	fmt.Fprintln(r.stdin, "set rate 2")
	r.waitOutput(t, "did not negotiate terms")
	fmt.Fprintln(r.stdin, "set verbosity terse")
	r.waitOutput(t, "Announcing at terse verbosity from now on.")
	fmt.Fprintln(r.stdin, "set speed 2")
	r.waitOutput(t, `There is no setting "speed"`)
	fmt.Fprintln(r.stdin, "quit")
	r.wait(t)
}

// Over stdio a typed answer travels as aaep.reply to the producer the
// listener started, which goes on as accepted: the payment is made.
func TestReplyOverStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childProducerEnv, "1")
	r := startListener(t, "--plain", "--exec", exe, "-test.run=^$")
	r.waitOutput(t, "Confirmation needed, prompt 1")
	fmt.Fprintln(r.stdin, "accept 1\nyes")
	r.waitOutput(t, "Sent your answer to prompt 1: accept.")
	r.waitOutput(t, "Sending 86.40 euros to Lisbon Energy.")
	r.waitOutput(t, "Transfer done: the electricity bill is paid.")
	fmt.Fprintln(r.stdin, "quit")
	r.wait(t)
	if out := r.stdout(); strings.Contains(out, "No go-ahead") {
		t.Errorf("the producer did not act on the answer:\n%s", out)
	}
}
