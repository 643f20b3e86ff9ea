package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// scriptedProducer is an appendix-B producer that answers the n-th
// subscription request with answers[n] (the last one for any later
// request) and serves one stream, written by stream (by default one started
// and one completed event); it keeps what comes to the replies path.
type scriptedProducer struct {
	answers []func(req map[string]any) (status int, body string)
	stream  func(w io.Writer)
	// reply, if not nil, answers what comes to the replies path.
	reply func(body string) (status int, answer string)

	mu       sync.Mutex
	requests []map[string]any
	sent     []string
	streams  int
}

func (p *scriptedProducer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch r.URL.Path {
	case protocol.PathSubscriptions:
		var req map[string]any
		_ = json.Unmarshal(body, &req)
		answer := p.answers[min(len(p.requests), len(p.answers)-1)]
		p.requests = append(p.requests, req)
		status, out := answer(req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, out)
	case protocol.PathEvents:
		p.streams++
		if p.streams > 1 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if stream := p.stream; stream != nil {
			// Never hold the lock across a stream: replies, which take it,
			// come while the stream is open.
			p.mu.Unlock()
			defer p.mu.Lock() // for the deferred Unlock
			stream(w)
			return
		}
		for i, typ := range []string{"agent.session.started", "agent.session.completed"} {
			sseEvent(w, i, typ, "normal", fmt.Sprintf("Event %d of the retried subscription.", i), "")
		}
	case protocol.PathReplies:
		p.sent = append(p.sent, string(body))
		if p.reply == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		status, answer := p.reply(string(body))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	default:
		http.NotFound(w, r)
	}
}

// sseEvent writes event i of session sess_t as a Server-Sent Event.
func sseEvent(w io.Writer, i int, typ, urgency, summary, extra string) {
	fmt.Fprintf(w, "event: aaep.event\nid: evt_t%d\ndata: {\"@context\":\"https://aaep-protocol.org/context/v1\",\"type\":\"aaep:%s\","+
		"\"event_id\":\"evt_t%d\",\"session_id\":\"sess_t\",\"sequence_number\":%d,\"timestamp\":\"2026-06-30T14:22:11.342Z\","+
		"\"urgency\":%q,\"producer\":{\"agent_id\":\"test\"},\"summary_normal\":%q%s}\n\n", i, typ, i, i, urgency, summary, extra)
}

func (p *scriptedProducer) replies() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sent...)
}

func rejection(code, message string, retryAfter int) func(map[string]any) (int, string) {
	return func(map[string]any) (int, string) {
		retry := ""
		if retryAfter >= 0 {
			retry = fmt.Sprintf(`,"retry_after_seconds":%d`, retryAfter)
		}
		return http.StatusBadRequest, fmt.Sprintf(`{"type":"subscription.rejected","reason_code":%q,"reason_message":%q%s}`, code, message, retry)
	}
}

func acceptance(map[string]any) (int, string) {
	return http.StatusOK, `{"type":"subscription.accepted","subscription_id":"sub_retry1","aaep_version":"1.0.0",` +
		`"producer":{"agent_id":"picky","agent_name":"Picky Agent"},"honored_capabilities":{}}`
}

// A rejection that says when to retry is retried after that long, with a
// countdown in whole lines; a prefix clash is retried at once without the
// clashing extension; then the subscription goes on.
func TestRejectedThenRetried(t *testing.T) {
	t.Parallel()
	p := &scriptedProducer{answers: []func(map[string]any) (int, string){
		rejection("rate_limit", "Too many subscribers right now.", 1),
		func(req map[string]any) (int, string) {
			if ext, _ := req["extensions"].(map[string]any); ext["sigrpl"] != nil {
				return rejection("capabilities_incompatible", "The extension prefix sigrpl is ours and means something else.", -1)(req)
			}
			return acceptance(req)
		},
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	r := startListener(t, "--plain", "--layout", "spec", srv.URL)
	r.wait(t)
	out := r.stdout()
	want := []string{
		"The producer refused the subscription: too many subscriptions; try again later.",
		"Retrying in 1 second.",
		"Retrying now.",
		"it cannot meet the requested capabilities.",
		`clash with ours over the prefix "sigrpl"`,
		"Subscribed to Picky Agent.",
		"Event 1 of the retried subscription.",
	}
	if w := inOrder(out, want); w != "" {
		t.Fatalf("%q missing, or out of order, in:\n%s\nstderr:\n%s", w, out, r.stderr())
	}
	if len(p.requests) != 3 {
		t.Fatalf("%d subscription requests, want 3", len(p.requests))
	}
	if caps := p.requests[2]["capabilities"].(map[string]any); caps["sigrpl"] != nil || p.requests[2]["extensions"] != nil {
		t.Errorf("the third request still offers sigrpl: %v", p.requests[2])
	}
	if p.requests[1]["extensions"] == nil {
		t.Errorf("the retry after the countdown lost the extensions: %v", p.requests[1])
	}
}

// Every reason code, and one no spec knows, gets its sentence; without
// retry_after_seconds nothing is retried, and the listener exits 1.
func TestRejectedEveryReason(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"version_unsupported", "manifest_signature_required", "capabilities_incompatible", "rate_limit",
		"authentication_required", "authorization_denied", "transport_unavailable", "unknown", "too_sunny_today"} {
		t.Run(code, func(t *testing.T) {
			p := &scriptedProducer{answers: []func(map[string]any) (int, string){rejection(code, "Because.", -1)}}
			srv := httptest.NewServer(p)
			defer srv.Close()
			r := startListener(t, "--plain", "--no-sign", "--layout", "spec", srv.URL)
			if code := r.exitCode(t); code != 1 {
				t.Errorf("exit status %d after a refusal, want 1", code)
			}
			want := "The producer refused the subscription: " + subscriber.Hints(listenHints).RejectionWords(code) + " It says: Because."
			if !strings.Contains(r.stdout(), want) {
				t.Errorf("stdout lacks %q:\n%s", want, r.stdout())
			}
			if strings.Contains(r.stdout(), "Retrying") || len(p.requests) != 1 {
				t.Errorf("retried %d times without retry_after_seconds:\n%s", len(p.requests)-1, r.stdout())
			}
		})
	}
}

// Over WebSocket, against the real producer told to refuse once with
// retry_after_seconds: the countdown, then the subscription and its events.
func TestRejectedThenRetriedWebSocket(t *testing.T) {
	t.Parallel()
	_, url := serve(t, producer.Options{Scenarios: scenarios(t, "happy"), Refuse: &producer.Refusal{Code: "rate_limit", RetryAfter: 1, Times: 1}})
	r := startListener(t, "--plain", "--no-sign", "ws"+strings.TrimPrefix(url, "http")+protocol.PathWebSocket)
	r.waitOutput(t, "too many subscriptions; try again later.")
	r.waitOutput(t, "Retrying in 1 second.")
	r.waitOutput(t, "Retrying now.")
	r.waitOutput(t, "Subscribed to Demo Assistant.")
	r.wait(t)
}
