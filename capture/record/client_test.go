package main

// client_test.go: aaep-capture records through the subscriber client, so
// it closes its subscription, explains a rejection, says when the
// connection is lost and back, and decides through the one gate. Every
// test runs against the real producer on loopback.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// watch is an output that tells waiters when a text has been written.
type watch struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced at every write
}

func newWatch() *watch { return &watch{changed: make(chan struct{})} }

func (w *watch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.changed)
	w.changed = make(chan struct{})
	return w.buf.Write(p)
}

func (w *watch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// wait waits until text has been written n times in all.
func (w *watch) wait(t *testing.T, ctx context.Context, text string, n int) {
	t.Helper()
	for {
		w.mu.Lock()
		got, changed := strings.Count(w.buf.String(), text), w.changed
		w.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("waited in vain for %q (%d times) on standard error:\n%s", text, n, w.String())
		}
	}
}

// sent collects what subscribers send a producer (Options.OnMessage).
type sent struct {
	mu   sync.Mutex
	msgs [][]byte
	got  chan struct{} // closed and replaced at every message
}

func newSent() *sent { return &sent{got: make(chan struct{})} }

func (s *sent) on(_ string, msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, bytes.Clone(msg))
	close(s.got)
	s.got = make(chan struct{})
}

// ofType returns the messages of type typ sent so far.
func (s *sent) ofType(typ string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out [][]byte
	for _, m := range s.msgs {
		if protocol.PeekType(m) == typ {
			out = append(out, m)
		}
	}
	return out
}

// liveProducer serves the demo scenarios on addr ("" for any loopback
// port) and stays open when they are done; it returns the server.
func liveProducer(t *testing.T, addr string, opts producer.Options) *httptest.Server {
	t.Helper()
	if opts.Scenarios == nil && opts.Replay == nil {
		opts.Scenarios = demoProducerOptions(t).Scenarios
	}
	p := producer.New(opts)
	srv := httptest.NewUnstartedServer(p)
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		p.Close()
		srv.Close()
	})
	return srv
}

// demoProducerOptions plays every demo scenario at once, without pauses.
func demoProducerOptions(t *testing.T) producer.Options {
	t.Helper()
	all, err := producer.LoadScenarios(demo.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	return producer.Options{Scenarios: all}
}

// runCapture runs aaep-capture with args in the background; the returned
// function waits for it and returns its exit code.
func runCapture(ctx context.Context, args ...string) (stderr *watch, wait func() int) {
	stderr = newWatch()
	tio := term.New(&bytes.Buffer{}, &bytes.Buffer{}, stderr, false, false, func(string) string { return "" }, false)
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, tio) }()
	return stderr, func() int { return <-done }
}

// A rejection is explained in words: what its code means, the producer's
// own message, and when it asks to be tried again; a retry it allows is
// made, and one that stands ends the capture with exit status 1.
func TestRejectionExplained(t *testing.T) {
	for _, tt := range []struct {
		name     string
		refuse   producer.Refusal
		wantCode int
		want     []string
	}{
		{"refused for good", producer.Refusal{Code: "rate_limit", Message: "slow down please", RetryAfter: -1}, 1,
			[]string{"refused the subscription", "too many subscriptions", "slow down please", `reason code "rate_limit"`}},
		{"unknown code, for good", producer.Refusal{Code: "not_today", RetryAfter: -1}, 1,
			[]string{"refused the subscription", "not_today"}},
		{"retried after a second", producer.Refusal{Code: "rate_limit", Message: "busy", RetryAfter: 1, Times: 1}, 0,
			[]string{"refused the subscription", "busy", "tried again in 1 second", "Retrying now.", "Subscribed to"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refuse := tt.refuse
			opts := demoProducerOptions(t)
			opts.Refuse, opts.EndWhenDone = &refuse, true
			srv := liveProducer(t, "", opts)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			path := filepath.Join(t.TempDir(), "s.aaep")
			stderr, wait := runCapture(ctx, "--endpoint", srv.URL, "-o", path, "--no-progress")
			if code := wait(); code != tt.wantCode {
				t.Errorf("exit status %d, want %d", code, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("standard error does not say %q:\n%s", w, stderr)
				}
			}
			// Each status is a line of its own.
			if !strings.Contains("\n"+stderr.String(), "\nThe producer refused the subscription: ") {
				t.Errorf("the refusal is not a line of its own:\n%s", stderr)
			}
		})
	}
}

// A hostile rejection can neither put an escape sequence on standard
// error nor start a line of its own.
func TestHostileRejectionOneLine(t *testing.T) {
	opts := demoProducerOptions(t)
	opts.Refuse = &producer.Refusal{Code: "x\x1b[31m\nForged: code", Message: "fine\nForged: all accepted\x1b[2J\u2066", RetryAfter: -1}
	srv := liveProducer(t, "", opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stderr, wait := runCapture(ctx, "--endpoint", srv.URL, "-o", filepath.Join(t.TempDir(), "s.aaep"), "--no-progress")
	if code := wait(); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	out := stderr.String()
	if !strings.Contains(out, "all accepted") {
		t.Fatalf("the producer's message is not told:\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b\u2066") {
		t.Errorf("an escape or a direction control reached standard error: %q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Forged") {
			t.Errorf("the producer started a line: %q", out)
		}
	}
}

// When the producer dies, standard error says the connection is lost at
// once (not after the capture ends), and says so again when it is back.
func TestProducerKilledSaid(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv := liveProducer(t, "", producer.Options{})
	addr := srv.Listener.Addr().String()
	path := filepath.Join(t.TempDir(), "s.aaep")
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	stderr, wait := runCapture(runCtx, "--endpoint", srv.URL, "-o", path, "--no-progress")
	stderr.wait(t, ctx, "Subscribed to", 1)
	// The producer dies: its connections are cut, its port refuses.
	srv.CloseClientConnections()
	srv.Close()
	stderr.wait(t, ctx, "Connection lost", 1)
	// It comes back on the same port.
	liveProducer(t, addr, producer.Options{})
	stderr.wait(t, ctx, "Connected to", 2)
	stop()
	if code := wait(); code != 0 {
		t.Errorf("exit status %d:\n%s", code, stderr)
	}
	out := stderr.String()
	lost, back := strings.Index(out, "Connection lost"), strings.LastIndex(out, "Connected to")
	if lost < 0 || back < lost {
		t.Errorf("the connection is not said lost before it is back:\n%s", out)
	}
	_, recs := capturetest.ReadAll(t, path)
	notes := 0
	for _, rec := range recs {
		if rec.Note {
			notes++
		}
	}
	if notes == 0 {
		t.Error("the capture holds no transport note of the reconnection")
	}
}

// However the capture stops, it tells the producer: the producer sees a
// subscription.close naming the subscription.
func TestCloseSentWhenStopped(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
		stop  bool // the test stops it, as Control-C does
		why   string
	}{
		{"Control-C", nil, true, "Stopped."},
		{"--duration", []string{"--duration", "3s"}, false, "The --duration is over."}, // long enough to subscribe on a busy machine
		{"--max-events", []string{"--max-events", "3"}, false, "Reached --max-events 3."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := newSent()
			srv := liveProducer(t, "", producer.Options{Scenarios: demoProducerOptions(t).Scenarios, OnMessage: got.on})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			runCtx, stop := context.WithCancel(ctx)
			defer stop()
			path := filepath.Join(t.TempDir(), "s.aaep")
			stderr, wait := runCapture(runCtx, append([]string{"--endpoint", srv.URL, "-o", path, "--no-progress"}, tt.flags...)...)
			if tt.stop {
				stderr.wait(t, ctx, "Subscribed to", 1)
				stop()
			}
			if code := wait(); code != 0 {
				t.Errorf("exit status %d:\n%s", code, stderr)
			}
			if !strings.Contains(stderr.String(), tt.why) {
				t.Errorf("the summary does not say %q:\n%s", tt.why, stderr)
			}
			closes := got.ofType(protocol.TypeSubscriptionClose)
			if len(closes) != 1 || !bytes.Contains(closes[0], []byte(`"subscription_id":"sub_`)) {
				t.Fatalf("the producer was sent %d subscription.close: %s", len(closes), closes)
			}
			_, recs := capturetest.ReadAll(t, path)
			if last := recs[len(recs)-1]; last.Dir != capture.Out || protocol.PeekType(last.Msg) != protocol.TypeSubscriptionClose {
				t.Errorf("the capture does not end with the close it sent: %s", last.Msg)
			}
		})
	}
}

// The real binary, stopped by an interrupt as Control-C sends it, closes
// its subscription and ends normally.
func TestBinaryInterruptCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	got := newSent()
	srv := liveProducer(t, "", producer.Options{Scenarios: demoProducerOptions(t).Scenarios, OnMessage: got.on})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "s.aaep")
	cmd := exec.CommandContext(ctx, bin, "--endpoint", srv.URL, "-o", path)
	stderr := newWatch()
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr.wait(t, ctx, "Subscribed to", 1)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("aaep-capture: %v\n%s", err, stderr.String())
	}
	if n := len(got.ofType(protocol.TypeSubscriptionClose)); n != 1 {
		t.Errorf("the producer was sent %d subscription.close, want 1; standard error:\n%s", n, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Stopped.") {
		t.Errorf("standard error:\n%s", stderr.String())
	}
}

// --auto-reply reject decides through the gate with the engine's memory:
// a prompt replayed (the same event again, or the same reply token under a
// new event ID) is rejected once, never again.
func TestAutoReplyOncePerPrompt(t *testing.T) {
	f, err := os.Open("../../capture/testdata/corpus/clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	orig, _, err := capture.ReadDocuments(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The session three times: as recorded, replayed exactly, and with
	// every event under a new ID (same reply tokens).
	var recs []capture.Record
	for round := range 3 {
		for _, r := range orig {
			r.T += float64(round) * 1.1
			if round == 2 {
				r.Msg = bytes.ReplaceAll(r.Msg, []byte(`"evt_`), []byte(`"evt_again_`))
			}
			recs = append(recs, r)
		}
	}
	got := newSent()
	replay := &producer.Replay{Records: recs, Speed: 1}
	srv := liveProducer(t, "", producer.Options{Replay: replay, OnMessage: got.on})
	// Only a bound: the replies are told however late they come (OnMessage
	// hears every POST while the server is up), and the capture sends them
	// before it ends. A wider bound only gives a loaded machine room.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "s.aaep")
	stderr, wait := runCapture(ctx, "--endpoint", srv.URL, "-o", path, "--no-progress", "--auto-reply", "reject")
	if code := wait(); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, stderr)
	}
	perToken := map[string]int{}
	for _, m := range got.ofType(protocol.TypeConfirmationReply) {
		var r protocol.ConfirmationReply
		if err := json.Unmarshal(m, &r); err != nil {
			t.Fatal(err)
		}
		if r.Decision != protocol.DecisionReject || r.DecidedBy != "policy:aaep-capture-auto-reply" {
			t.Errorf("reply %s", m)
		}
		perToken[r.ReplyToken]++
	}
	if len(perToken) == 0 {
		t.Fatalf("nothing was rejected:\n%s", stderr)
	}
	for tok, n := range perToken {
		if n != 1 {
			t.Errorf("prompt %s was rejected %d times", tok, n)
		}
	}
	if !strings.Contains(stderr.String(), "Your --auto-reply policy rejected:") {
		t.Errorf("standard error does not say what was rejected:\n%s", stderr)
	}
	// The replies are in the capture, as sent.
	_, frecs := capturetest.ReadAll(t, path)
	out := 0
	for _, r := range frecs {
		if r.Dir == capture.Out && protocol.PeekType(r.Msg) == protocol.TypeConfirmationReply {
			out++
		}
	}
	if out != len(got.ofType(protocol.TypeConfirmationReply)) {
		t.Errorf("%d replies in the capture, %d sent", out, len(got.ofType(protocol.TypeConfirmationReply)))
	}
}

// The capabilities are honest: a recorder that cannot answer says so, and
// the producer then sends it no prompt to wait on; with --auto-reply it
// says it can answer confirmations, and questions never.
func TestHonestCapabilities(t *testing.T) {
	for _, tt := range []struct {
		flags       []string
		wantConfirm bool
	}{
		{nil, false},
		{[]string{"--auto-reply", "reject"}, true},
	} {
		t.Run(fmt.Sprint(tt.wantConfirm), func(t *testing.T) {
			path, _ := captureFrom(t, startProducer(t, false), tt.flags...)
			_, recs := capturetest.ReadAll(t, path)
			var req protocol.SubscriptionRequest
			for _, r := range recs {
				if r.Dir == capture.Out && protocol.PeekType(r.Msg) == protocol.TypeSubscriptionRequest {
					if err := json.Unmarshal(r.Msg, &req); err != nil {
						t.Fatal(err)
					}
				}
			}
			c := req.Capabilities
			if c.SupportsConfirmationReply == nil || *c.SupportsConfirmationReply != tt.wantConfirm ||
				c.SupportsClarificationReply == nil || *c.SupportsClarificationReply {
				t.Errorf("capabilities %+v", c)
			}
		})
	}
}

// No subscription.request is built by hand in aaep-capture: the client
// makes it.
func TestNoHandBuiltRequest(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"TypeSubscriptionRequest", "supports_confirmation_reply", "TypeConfirmationReply"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s builds protocol messages itself (%s): the subscriber client does", name, bad)
			}
		}
	}
}

// buildBinary builds aaep-capture for a test and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "aaep-capture")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}
