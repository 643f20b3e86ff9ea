package record

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/transport"
)

// One endpoint that cannot be reached never stops the others: the other is
// recorded to its end, standard error names the one that failed, and the
// recording ends with an error.
func TestOneAgentFailing(t *testing.T) {
	dead := capturetest.ClosedEndpoint(t) // nothing listens there
	_, live := capturetest.PromptingProducer(t)
	path := filepath.Join(t.TempDir(), "two.aaep")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stderr, wait := runRecord(ctx, "", path, Options{
		Agents:    []agentspec.Spec{{Label: "gone", Endpoint: dead}, {Endpoint: live}},
		Transport: transport.Options{SSE: transport.SSEOptions{HeaderTimeout: 2 * time.Second}},
	})
	if err := wait(); err == nil {
		t.Error("no error, want one for the agent that failed")
	}
	text := stderr.String()
	for _, w := range []string{"\ngone: It could not be recorded (said above). Recorded 0 messages.\n", "\ngone: aaep-capture: connect to ", "\n" + live + ": Subscribed", " from 1 of 2 agents to "} {
		if !strings.Contains(text, w) {
			t.Errorf("standard error lacks %q:\n%s", w, text)
		}
	}
	r, recs := capturetest.ReadAll(t, path)
	if len(r.Header().Connections) != 2 {
		t.Fatalf("header %+v", r.Header())
	}
	events := 0
	for _, rec := range recs {
		if rec.Conn == "c2" && !rec.Note && rec.Dir == capture.In {
			events++
		}
	}
	if events < 20 {
		t.Errorf("only %d messages of the live agent", events)
	}
}

// MaxEvents (--max-events) counts over every agent and stops them all: each
// subscription made is closed (subscription.close recorded as sent on its
// own connection; one stopped before the producer accepted it has none to
// close), and nothing received after the limit is written.
func TestMaxEventsStopsAllAgents(t *testing.T) {
	_, a := capturetest.PromptingProducer(t)
	_, b := capturetest.PromptingProducer(t)
	path := filepath.Join(t.TempDir(), "two.aaep")
	_, errOut := recordFrom(t, "", Options{Output: path, MaxEvents: 6, Agents: []agentspec.Spec{{Label: "a", Endpoint: a}, {Label: "b", Endpoint: b}}})
	_, recs := capturetest.ReadAll(t, path)
	in, closes, accepted := 0, map[string]int{}, map[string]int{}
	for _, rec := range recs {
		switch {
		case rec.Dir == capture.In && !rec.Note:
			in++
			if strings.Contains(string(rec.Msg), `"subscription.accepted"`) {
				accepted[rec.Conn]++
			}
		case rec.Dir == capture.Out && strings.Contains(string(rec.Msg), `"subscription.close"`):
			closes[rec.Conn]++
		}
	}
	bad := in != 6 || len(accepted) == 0
	for _, c := range []string{"c1", "c2"} {
		// An acceptance that came after the limit is not recorded, but
		// its close still is.
		bad = bad || closes[c] > 1 || accepted[c] > closes[c]
	}
	if bad {
		t.Errorf("%d received messages recorded, closes %v, subscriptions %v; want 6 and one close per subscription\n%s", in, closes, accepted, errOut)
	}
	if !strings.Contains(errOut, "\na: Reached --max-events 6. Recorded ") || !strings.Contains(errOut, "\nb: Reached --max-events 6. Recorded ") {
		t.Errorf("standard error:\n%s", errOut)
	}
}
