package record

// client_test.go: a recording goes through the subscriber client, so it
// closes its subscription, explains a rejection, says when the connection
// is lost and back, and decides through the one gate. Every test runs
// against the real producer on loopback.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// runRecord records endpoint (or, for "", o.Agents) into path as o
// says, in the background, with no progress line; the returned function
// waits for the recording to end and returns its error.
func runRecord(ctx context.Context, endpoint, path string, o Options) (stderr *capturetest.Watch, wait func() error) {
	stderr = capturetest.NewWatch()
	o.Output, o.Out, o.Err, o.Now = path, io.Discard, stderr, time.Now
	if endpoint != "" {
		o.Agents = []agentspec.Spec{{Endpoint: endpoint}}
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, &o) }()
	return stderr, func() error { return <-done }
}

// A rejection is explained in words: what its code means, the producer's
// own message (the code itself in the error), and when it asks to be
// tried again; a retry it allows is made, and one that stands ends the
// recording with an error.
func TestRejectionExplained(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		refuse  producer.Refusal
		wantErr bool
		want    []string
	}{
		{"refused for good", producer.Refusal{Code: "rate_limit", Message: "slow down please", RetryAfter: -1}, true,
			[]string{"refused the subscription", "too many subscriptions", "slow down please", `reason code "rate_limit"`}},
		{"unknown code, for good", producer.Refusal{Code: "not_today", RetryAfter: -1}, true,
			[]string{"refused the subscription", "not_today"}},
		{"retried after a second", producer.Refusal{Code: "rate_limit", Message: "busy", RetryAfter: 1, Times: 1}, false,
			[]string{"refused the subscription", "busy", "tried again in 1 second", "Retrying now.", "Subscribed to"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			refuse := tt.refuse
			srv := capturetest.LiveProducer(t, "", producer.Options{Refuse: &refuse, EndWhenDone: true})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			path := filepath.Join(t.TempDir(), "s.aaep")
			stderr, wait := runRecord(ctx, srv.URL, path, Options{})
			err := wait()
			if (err != nil) != tt.wantErr {
				t.Errorf("error %v, want one: %v", err, tt.wantErr)
			}
			said := stderr.String() // and the error, which aaep-capture says last
			if err != nil {
				said += err.Error()
			}
			for _, w := range tt.want {
				if !strings.Contains(said, w) {
					t.Errorf("standard error and the error do not say %q:\n%s", w, said)
				}
			}
			// Each status is a line of its own.
			if !strings.Contains("\n"+stderr.String(), "\nThe producer refused the subscription: ") {
				t.Errorf("the refusal is not a line of its own:\n%s", stderr)
			}
		})
	}
}

// When the producer dies, standard error says the connection is lost at
// once (not after the capture ends), and says so again when it is back.
func TestProducerKilledSaid(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv := capturetest.LiveProducer(t, "", producer.Options{})
	addr := srv.Listener.Addr().String()
	path := filepath.Join(t.TempDir(), "s.aaep")
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	stderr, wait := runRecord(runCtx, srv.URL, path, Options{})
	stderr.Wait(t, ctx, "Subscribed to", 1)
	// The producer dies: its connections are cut, its port refuses.
	srv.CloseClientConnections()
	srv.Close()
	stderr.Wait(t, ctx, "Connection lost", 1)
	// It comes back on the same port.
	capturetest.LiveProducer(t, addr, producer.Options{})
	stderr.Wait(t, ctx, "Connected to", 2)
	stop()
	if err := wait(); err != nil {
		t.Errorf("%v:\n%s", err, stderr)
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
	t.Parallel()
	for _, tt := range []struct {
		name string
		o    Options
		stop bool // the test stops it, as Control-C does
		why  string
	}{
		{"Control-C", Options{}, true, "Stopped."},
		{"--duration", Options{Duration: 3 * time.Second}, false, "The --duration is over."}, // long enough to subscribe on a busy machine
		{"--max-events", Options{MaxEvents: 3}, false, "Reached --max-events 3."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := &capturetest.Sent{}
			srv := capturetest.LiveProducer(t, "", producer.Options{OnMessage: got.On})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			runCtx, stop := context.WithCancel(ctx)
			defer stop()
			path := filepath.Join(t.TempDir(), "s.aaep")
			stderr, wait := runRecord(runCtx, srv.URL, path, tt.o)
			if tt.stop {
				stderr.Wait(t, ctx, "Subscribed to", 1)
				stop()
			}
			if err := wait(); err != nil {
				t.Errorf("%v:\n%s", err, stderr)
			}
			if !strings.Contains(stderr.String(), tt.why) {
				t.Errorf("the summary does not say %q:\n%s", tt.why, stderr)
			}
			closes := got.OfType(protocol.TypeSubscriptionClose)
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

// --auto-reply reject decides through the gate with the engine's memory:
// a prompt replayed (the same event again, or the same reply token under a
// new event ID) is rejected once, never again.
func TestAutoReplyOncePerPrompt(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../testdata/corpus/clean.aaep")
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
	got := &capturetest.Sent{}
	replay := &producer.Replay{Records: recs, Speed: 1}
	srv := capturetest.LiveProducer(t, "", producer.Options{Replay: replay, OnMessage: got.On})
	// Only a bound: the replies are told however late they come (OnMessage
	// hears every POST while the server is up), and the capture sends them
	// before it ends. A wider bound only gives a loaded machine room.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "s.aaep")
	stderr, wait := runRecord(ctx, srv.URL, path, Options{AutoReply: true})
	if err := wait(); err != nil {
		t.Fatalf("%v:\n%s", err, stderr)
	}
	perToken := map[string]int{}
	for _, m := range got.OfType(protocol.TypeConfirmationReply) {
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
	if out != len(got.OfType(protocol.TypeConfirmationReply)) {
		t.Errorf("%d replies in the capture, %d sent", out, len(got.OfType(protocol.TypeConfirmationReply)))
	}
}

// The capabilities are honest: a recorder that cannot answer says so, and
// the producer then sends it no prompt to wait on; with --auto-reply it
// says it can answer confirmations (AutoReply), and questions never.
func TestHonestCapabilities(t *testing.T) {
	for _, tt := range []struct {
		autoReply   bool
		wantConfirm bool
	}{
		{false, false},
		{true, true},
	} {
		t.Run(fmt.Sprint(tt.wantConfirm), func(t *testing.T) {
			_, url := capturetest.PromptingProducer(t)
			path, _ := recordFrom(t, url, Options{AutoReply: tt.autoReply})
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
