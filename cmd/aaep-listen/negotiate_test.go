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
	"time"

	"github.com/aaep-term/aaep-term/producer"
)

// termsProducer is an appendix-B producer that grants what it is told to,
// whatever was asked, then floods: 60 background events and, among them,
// 5 critical ones, with no regard for the rate.
type termsProducer struct {
	honored string // honored_capabilities, JSON

	mu       sync.Mutex
	requests []string // subscription.request bodies
	sent     []string // what came to the replies path
	streams  int
}

func (p *termsProducer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch r.URL.Path {
	case producer.PathSubscriptions:
		p.requests = append(p.requests, string(body))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"type":"subscription.accepted","subscription_id":"sub_terms1","aaep_version":"1.0.0",`+
			`"producer":{"agent_id":"greedy","agent_name":"Greedy Agent"},"honored_capabilities":%s}`, p.honored)
	case producer.PathReplies:
		p.sent = append(p.sent, string(body))
		w.WriteHeader(http.StatusAccepted)
	case producer.PathEvents:
		p.streams++
		if p.streams > 1 {
			w.WriteHeader(http.StatusNoContent) // do not come back
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 60 {
			typ, urgency, summary := "agent.progress.updated", "background", fmt.Sprintf("Step %d.", i)
			if i%12 == 5 {
				typ, urgency, summary = "agent.state.changed", "critical", fmt.Sprintf("Critical news %d.", i)
			}
			extra := `,"progress":{"percent":50}`
			if typ == "agent.state.changed" {
				extra = `,"from_state":"thinking","to_state":"acting"`
			}
			fmt.Fprintf(w, "event: aaep.event\nid: evt_f%d\ndata: {\"@context\":\"https://aaep-protocol.org/context/v1\",\"type\":\"aaep:%s\","+
				"\"event_id\":\"evt_f%d\",\"session_id\":\"sess_f\",\"sequence_number\":%d,\"timestamp\":\"2026-06-30T14:22:11.342Z\","+
				"\"urgency\":%q,\"producer\":{\"agent_id\":\"greedy\"},\"summary_normal\":%q%s}\n\n", i, typ, i, i, urgency, summary, extra)
		}
		w.(http.Flusher).Flush()
	default:
		http.NotFound(w, r)
	}
}

func (p *termsProducer) replies() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sent...)
}

// A producer that grants 50 events per second when 2 were asked is named
// for it; its flood is reported once, and every critical event is shown.
func TestProducerGrantsMoreThanAsked(t *testing.T) {
	p := &termsProducer{honored: `{"max_events_per_second":50,"supports_confirmation_reply":true,"supported_conformance_levels":[1,2,3]}`}
	srv := httptest.NewServer(p)
	defer srv.Close()
	r := startListener(t, "--plain", "--no-sign", "--rate", "2", srv.URL)
	r.wait(t)
	out, errOut := r.stdout(), r.stderr()
	if !strings.Contains(errOut, "The producer breaks the negotiation rules: The producer grants 50 events per second, more than the 2 you asked for.") {
		t.Errorf("no diagnostic for the rate granted:\n%s", errOut)
	}
	if n := strings.Count(errOut, "faster than the 2 events per second"); n != 1 {
		t.Errorf("the flood was reported %d times, want once:\n%s", n, errOut)
	}
	for i := 5; i < 60; i += 12 {
		if want := fmt.Sprintf("Critical news %d.", i); !strings.Contains(out, want) {
			t.Errorf("critical event %q not shown:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "Step "); n > 5 {
		t.Errorf("%d background events of the flood announced at 2 per second:\n%s", n, out)
	}
	if !strings.Contains(errOut, "background events were not announced") {
		t.Errorf("the end of the flood is not reported:\n%s", errOut)
	}
	var req struct {
		Caps map[string]any `json:"capabilities"`
	}
	if len(p.requests) != 1 || json.Unmarshal([]byte(p.requests[0]), &req) != nil || req.Caps["max_events_per_second"] != 2.0 {
		t.Errorf("requests %q", p.requests)
	}
}

// With --strict, such a producer gets a subscription.close and the user
// is told why.
func TestStrictClosesOnGreedyProducer(t *testing.T) {
	p := &termsProducer{honored: `{"max_events_per_second":2,"languages":["fr"]}`}
	srv := httptest.NewServer(p)
	defer srv.Close()
	r := startListener(t, "--plain", "--no-sign", "--lang", "yo,en", "--strict", srv.URL)
	r.wait(t)
	if !strings.Contains(r.stdout(), "Closing the subscription: the producer granted more than you asked for, and --strict is set.") {
		t.Errorf("no word of the close:\n%s\n%s", r.stdout(), r.stderr())
	}
	if !strings.Contains(r.stderr(), "The producer will speak fr, which you did not ask for.") {
		t.Errorf("the language granted is not named:\n%s", r.stderr())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		sent := strings.Join(p.replies(), "\n")
		if strings.Contains(sent, `"type":"subscription.close"`) && strings.Contains(sent, `"reason_code":"terms_violated"`) &&
			strings.Contains(sent, `"subscription_id":"sub_terms1"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the producer got no subscription.close: %q", sent)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
