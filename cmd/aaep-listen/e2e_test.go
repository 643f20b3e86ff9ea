package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/producer"
)

// listenerBinary builds aaep-listen once for the end-to-end tests, with the
// race detector when the tests have it.
func listenerBinary(t *testing.T) string {
	t.Helper()
	if raceBuild {
		return ttytest.Build(t, ".", "aaep-listen", "-race")
	}
	return ttytest.Build(t, ".", "aaep-listen")
}

func scenarios(t *testing.T, names ...string) []producer.Scenario {
	t.Helper()
	all, err := producer.LoadScenarios(os.DirFS("../../demo"), "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	sel, err := producer.SelectScenarios(all, names)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// listenerRun is a listener process with its stdin, stdout and stderr at hand.
type listenerRun struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	mu     sync.Mutex
	out    bytes.Buffer
	errOut bytes.Buffer
	wrote  chan struct{} // closed and replaced when stdout grows; guarded by mu
	done   chan error
}

func startListener(t *testing.T, args ...string) *listenerRun {
	t.Helper()
	return startListenerWith(t, nil, args...)
}

// startListenerWith is startListener with env added to the environment; unlike
// startListenerEnv it may be used by parallel tests.
func startListenerWith(t *testing.T, env []string, args ...string) *listenerRun {
	t.Helper()
	r := &listenerRun{done: make(chan error, 1), wrote: make(chan struct{})}
	r.cmd = exec.Command(listenerBinary(t), args...)
	r.cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "TZ=UTC"), env...)
	var err error
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	r.cmd.Stdout = writerFunc(func(p []byte) {
		r.mu.Lock()
		r.out.Write(p)
		close(r.wrote)
		r.wrote = make(chan struct{})
		r.mu.Unlock()
	})
	r.cmd.Stderr = writerFunc(func(p []byte) { r.mu.Lock(); r.errOut.Write(p); r.mu.Unlock() })
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() { _ = r.cmd.Process.Kill() })
	return r
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func (r *listenerRun) stdout() string { r.mu.Lock(); defer r.mu.Unlock(); return r.out.String() }
func (r *listenerRun) stderr() string { r.mu.Lock(); defer r.mu.Unlock(); return r.errOut.String() }

// waitOutput waits until stdout shows want, woken by each write; the bound
// is the test's last resort, not what it waits on.
func (r *listenerRun) waitOutput(t *testing.T, want string) {
	t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		r.mu.Lock()
		out, wrote := r.out.String(), r.wrote
		r.mu.Unlock()
		if strings.Contains(out, want) {
			return
		}
		select {
		case <-wrote:
		case <-timeout.C:
			t.Fatalf("output never showed %q:\n%s\nstderr:\n%s", want, r.stdout(), r.stderr())
		}
	}
}

func (r *listenerRun) wait(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("listener: %v\nstdout:\n%s\nstderr:\n%s", err, r.stdout(), r.stderr())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("listener did not exit\nstdout:\n%s\nstderr:\n%s", r.stdout(), r.stderr())
	}
}

func serve(t *testing.T, opts producer.Options) (*producer.Producer, string) {
	t.Helper()
	opts.EndWhenDone = true
	p := producer.New(opts)
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	return p, srv.URL
}

// A confirmation answered on piped stdin reaches the producer and changes
// what it does next, in both HTTP layouts.
func TestPipedAnswerChangesWhatTheProducerDoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer string
		quirks       bool
		want         producer.Resolution
	}{
		// Numbered: an answer without a number waits until the prompt
		// was heard (TestBareAnswerIsNotSwitched).
		{"accept", "accept 1\nyes", false, producer.Accepted}, // a payment that cannot be undone: two steps
		{"reject", "reject 1", false, producer.Rejected},
		{"accept legacy layout", "yes 1\nyes", true, producer.Accepted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm"), Quirks: tc.quirks})
			r := startListener(t, "--plain", url)
			r.waitOutput(t, "Confirmation needed")
			fmt.Fprintln(r.stdin, tc.answer)
			r.waitOutput(t, "Sent your answer to prompt 1")
			r.wait(t)
			outs := p.Outcomes()
			if len(outs) != 1 || outs[0].Resolution != tc.want {
				t.Fatalf("producer outcomes %+v, want %v", outs, tc.want)
			}
			if !tc.quirks && !strings.HasPrefix(outs[0].SubscriptionID, "sub_") {
				t.Errorf("reply carried no subscription: %+v", outs[0])
			}
			t.Logf("output:\n%s", r.stdout())
		})
	}
}

// --auto-reply reject answers without the user, and says so.
func TestAutoReplyReject(t *testing.T) {
	t.Parallel()
	p, url := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListener(t, "--plain", "--auto-reply", "reject", url)
	r.wait(t)
	if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != producer.Rejected {
		t.Fatalf("outcomes %+v", outs)
	}
	if !strings.Contains(r.stdout(), "--auto-reply policy rejects prompt 1") {
		t.Errorf("the policy's answer was not announced:\n%s", r.stdout())
	}
}

type record struct {
	Record    string          `json:"record"`
	Kind      string          `json:"kind"`
	Code      string          `json:"code"`
	SessionID string          `json:"session_id"`
	EventID   string          `json:"event_id"`
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Event     json.RawMessage `json:"event"`
}

func records(t *testing.T, out string) []record {
	t.Helper()
	var recs []record
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("not a JSON record: %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// A producer that duplicates and shuffles its events still has each one
// announced once, in order, and the streamed answer reads right.
func TestDuplicatedShuffledEventsAnnouncedOnceInOrder(t *testing.T) {
	t.Parallel()
	for _, quirks := range []bool{false, true} {
		t.Run(fmt.Sprintf("quirks=%v", quirks), func(t *testing.T) {
			// The reference: the same scenarios without chaos.
			_, cleanURL := serve(t, producer.Options{Scenarios: scenarios(t, "happy", "rtl")})
			clean := startListener(t, "--json", cleanURL)
			clean.wait(t)

			_, url := serve(t, producer.Options{Scenarios: scenarios(t, "happy", "rtl"), Quirks: quirks, Duplicate: 0.5, Shuffle: 6, Seed: 7})
			r := startListener(t, "--json", "--reorder-wait", "2s", url)
			r.wait(t)

			type seen struct{ seq []int64 }
			perSession := map[string][]int64{}
			ids := map[string]int{}
			dups := 0
			texts := map[string][]string{} // streamed text per session
			for _, rec := range records(t, r.stdout()) {
				if rec.Record == "diagnostic" && rec.Code == "duplicate" {
					dups++
				}
				if rec.Record != "announcement" {
					continue
				}
				if rec.Kind == "output" {
					texts[rec.SessionID] = append(texts[rec.SessionID], rec.Text)
					continue
				}
				if rec.Event == nil {
					continue
				}
				ids[rec.EventID]++
				var ev struct {
					Seq *int64 `json:"sequence_number"`
				}
				_ = json.Unmarshal(rec.Event, &ev)
				if ev.Seq != nil {
					perSession[rec.SessionID] = append(perSession[rec.SessionID], *ev.Seq)
				}
			}
			if dups == 0 {
				t.Error("the producer sent no duplicates; the test proves nothing")
			}
			for id, n := range ids {
				if n != 1 {
					t.Errorf("event %s announced %d times", id, n)
				}
			}
			for s, seqs := range perSession {
				if !slices.IsSorted(seqs) {
					t.Errorf("session %s announced out of order: %v", s, seqs)
				}
			}
			// Sessions run side by side and their IDs differ between runs, so
			// compare each session's own text, as a sorted set.
			var want []string
			wantBySession := map[string][]string{}
			for _, rec := range records(t, clean.stdout()) {
				if rec.Record == "announcement" && rec.Kind == "output" {
					wantBySession[rec.SessionID] = append(wantBySession[rec.SessionID], rec.Text)
				}
			}
			for _, w := range wantBySession {
				want = append(want, strings.Join(w, "|"))
			}
			var got []string
			for _, g := range texts {
				got = append(got, strings.Join(g, "|"))
			}
			slices.Sort(want)
			slices.Sort(got)
			if len(want) < 2 {
				t.Fatalf("the clean run streamed text in %d sessions, want 2", len(want))
			}
			if !slices.Equal(got, want) {
				t.Errorf("streamed answers read\n%q\nwant\n%q", got, want)
			}
			if len(ids) < 8 {
				t.Errorf("only %d events announced", len(ids))
			}
		})
	}
}

// A hostile producer: garbage, a 10 MB line, invalid UTF-8, escape
// sequences, then it vanishes in the middle of an event. The listener
// reports each problem, announces every valid event, prints no escape
// sequence, and ends cleanly.
func TestHostileProducer(t *testing.T) {
	t.Parallel()
	ev := func(seq int, typ, extra string) string {
		return fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:%s","event_id":"evt_h%d","session_id":"sess_h","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"hostile","agent_name":"Hostile Agent"}%s}`, typ, seq, seq, extra)
	}
	var served int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" || served > 0 {
			if served > 0 && r.URL.Path == "/events" {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			http.NotFound(w, r)
			return
		}
		served++
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		frames := []string{
			ev(0, "agent.session.started", `,"summary_normal":"Starting \u001b]0;pwned\u0007\u001b[31mred\u001b[0m \u202Egnp.exe"`),
			`{not json`,
			`"a string"`,
			"{\"type\":\"aaep:agent.state.changed\",\"summary_normal\":\"caf\xe9\"}",
			ev(1, "agent.tool.invoked", `,"tool":"fetch","summary_normal":"Fetching \u009b2J now."`),
			ev(2, "agent.tool.completed", `,"tool":"fetch","status":"success","summary_normal":"`+strings.Repeat("x", 10<<20)+`"`),
			ev(3, "agent.tool.completed", `,"tool":"fetch","status":"success","summary_normal":"Fetched."`),
		}
		for _, f := range frames {
			fmt.Fprintf(w, "data: %s\n\n", f)
			fl.Flush()
		}
		// Vanish in the middle of an event.
		fmt.Fprintf(w, "data: %s", ev(4, "agent.session.completed", `,"summary_normal":"Done."`)[:40])
		fl.Flush()
		hj, ok := w.(http.Hijacker)
		if !ok {
			return
		}
		conn, _, _ := hj.Hijack()
		conn.Close()
	}))
	defer srv.Close()
	r := startListener(t, "--plain", srv.URL)
	r.wait(t)
	out, errOut := r.stdout(), r.stderr()
	for _, want := range []string{"Starting red gnp.exe", "Fetching now.", "Fetched."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out+errOut, "\x1b\x07\u009b\u202e") {
		t.Errorf("an escape or bidi control reached the terminal:\n%q\n%q", out, errOut)
	}
	for _, want := range []string{"not valid JSON", "too large", "breaks the AAEP schema"} {
		if !strings.Contains(strings.ToLower(errOut), strings.ToLower(want)) {
			t.Errorf("stderr lacks a diagnostic about %q:\n%s", want, errOut)
		}
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
}
