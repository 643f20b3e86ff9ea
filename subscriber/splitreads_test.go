package subscriber_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// splitHistory is a producer's history as a late joiner gets it (the
// deployed layout, bare data lines): a confirmation another subscriber
// rejected, with output streamed while it waited, then one still waiting.
func splitHistory(t *testing.T, at time.Time) (frames [][]byte, ids []string) {
	t.Helper()
	events := []map[string]any{
		{"type": "aaep:agent.session.started", "summary_normal": "Bank is starting."},
		{"type": "aaep:agent.state.changed", "from_state": "idle", "to_state": "thinking", "summary_normal": "Thinking."},
		{"type": "aaep:agent.state.changed", "from_state": "thinking", "to_state": "awaiting_input", "summary_normal": "Asking."},
		{"type": "aaep:agent.awaiting.confirmation", "urgency": "critical", "action": "Pay 500 to Ann.", "consequence": "Money leaves.",
			"reply_token": "rpl_split1", "timeout_seconds": 300, "default_decision": "reject", "risk_level": "high", "irreversible": true},
		{"type": "aaep:agent.output.streaming", "chunk": "Meanwhile I check the balance. ", "position": 0, "complete": false, "output_id": "out_1"},
		{"type": "aaep:agent.state.changed", "from_state": "awaiting_input", "to_state": "thinking", "summary_normal": "Rejected on another screen."},
		{"type": "aaep:agent.progress.updated", "summary_normal": "Looking for another way.", "progress": map[string]any{"percent": 50}},
		{"type": "aaep:agent.state.changed", "from_state": "thinking", "to_state": "awaiting_input", "summary_normal": "Asking again."},
		{"type": "aaep:agent.awaiting.confirmation", "urgency": "critical", "action": "Pay 50 to Ann.", "consequence": "Money leaves.",
			"reply_token": "rpl_split2", "timeout_seconds": 300, "default_decision": "reject", "risk_level": "high", "irreversible": true},
		{"type": "aaep:agent.output.streaming", "chunk": "Waiting for you.", "position": 31, "complete": true, "output_id": "out_1"},
	}
	for i, ev := range events {
		ev["@context"] = "https://aaep-protocol.org/context/v1"
		ev["event_id"] = fmt.Sprintf("evt_split%03d", i)
		ev["session_id"] = "sess_split"
		ev["sequence_number"] = i
		ev["timestamp"] = at.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
		ev["producer"] = map[string]any{"agent_id": "bank", "agent_name": "Bank"}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, []byte("data: "+string(b)+"\n\n"))
		ids = append(ids, ev["event_id"].(string))
	}
	return frames, ids
}

// A late join to a producer replaying its history gives the same lines, in
// sequence order, however the history is split across reads: every frame
// boundary and the middle of every frame, each a few times. The client
// handles all it has read before the second part is even sent, so each
// split is a real pause in the stream.
func TestLateJoinSplitReadsSameLines(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	frames, ids := splitHistory(t, at)
	history := []byte(strings.Join(func() []string {
		var s []string
		for _, f := range frames {
			s = append(s, string(f))
		}
		return s
	}(), ""))
	// split points: -1 is no split at all.
	points := []int{-1}
	end := 0
	for _, f := range frames {
		points = append(points, end+len(f)/2, end+len(f))
		end += len(f)
	}
	var want []string
	for round := 0; round < 3; round++ {
		for _, k := range points {
			got := splitRun(t, at, history, frames, ids, k)
			if want == nil {
				want = got
				continue
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("split at byte %d of %d gives other lines:\n%s\n\nwithout a split:\n%s", k, len(history), g, w)
			}
		}
	}
	for _, l := range want {
		if strings.Contains(l, "withdrawn by the agent") {
			t.Errorf("a prompt is said withdrawn by the agent:\n%s", strings.Join(want, "\n"))
		}
	}
}

// splitRun serves history to one late joiner, in two parts cut at byte k
// (none when k < 0), and returns the lines it delivered.
func splitRun(t *testing.T, at time.Time, history []byte, frames [][]byte, ids []string, k int) []string {
	t.Helper()
	firstDone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		if k < 0 {
			_, _ = w.Write(history)
			fl.Flush()
		} else {
			_, _ = w.Write(history[:k])
			fl.Flush()
			select {
			case <-firstDone:
			case <-r.Context().Done():
				return
			}
			_, _ = w.Write(history[k:])
			fl.Flush()
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := subscriber.Start(ctx, srv.URL, subscriber.Config{
		Now:       func() time.Time { return at.Add(time.Minute) },
		Terms:     session.Terms{CanConfirm: true},
		Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutLegacy}}})
	defer c.Close()
	// The last event wholly in the first part: once it is told, the client
	// has handled the first part, and the second may go.
	lastFirst := ""
	if k >= 0 {
		n := 0
		for i, f := range frames {
			if n += len(f); n <= k {
				lastFirst = ids[i]
			}
		}
		if lastFirst == "" {
			close(firstDone)
		}
	}
	var lines []string
	for {
		u, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("split at %d: %v after:\n%s", k, err, strings.Join(lines, "\n"))
		}
		var l string
		switch u.Kind {
		case subscriber.KindDelivery:
			d := u.Delivery
			n := 0
			if d.Prompt != nil {
				n = d.Prompt.Number
			}
			l = fmt.Sprintf("%s %s prompt=%d %s", d.Kind, d.Event.EventID, n, d.Note)
		case subscriber.KindDiagnostic:
			l = "diagnostic " + u.Diagnostic.Code + ": " + u.Diagnostic.Message
		case subscriber.KindReply:
			l = "reply " + u.Text
		default:
			continue
		}
		lines = append(lines, l)
		if u.Kind != subscriber.KindDelivery {
			continue
		}
		switch id := u.Delivery.Event.EventID; {
		case id == ids[len(ids)-1]:
			return lines
		case id == lastFirst && u.Delivery.Kind == session.KindEvent:
			close(firstDone)
			lastFirst = ""
		}
	}
}
