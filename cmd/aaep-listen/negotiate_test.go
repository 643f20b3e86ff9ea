package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// greedyProducer grants what it is told to, whatever was asked, then
// floods: 60 background events and, among them, 5 critical ones, with no
// regard for the rate.
func greedyProducer(honored string) *scriptedProducer {
	return &scriptedProducer{
		answers: []func(map[string]any) (int, string){func(map[string]any) (int, string) {
			return http.StatusOK, `{"type":"subscription.accepted","subscription_id":"sub_terms1","aaep_version":"1.0.0",` +
				`"producer":{"agent_id":"greedy","agent_name":"Greedy Agent"},"honored_capabilities":` + honored + `}`
		}},
		stream: func(w io.Writer) {
			for i := range 60 {
				if i%12 == 5 {
					sseEvent(w, i, "agent.state.changed", "critical", fmt.Sprintf("Critical news %d.", i), `,"from_state":"thinking","to_state":"acting"`)
				} else {
					sseEvent(w, i, "agent.progress.updated", "background", fmt.Sprintf("Step %d.", i), `,"progress":{"percent":50}`)
				}
			}
		},
	}
}

// A producer that grants 50 events per second when 2 were asked is named
// for it; its flood is reported once, and every critical event is shown.
func TestProducerGrantsMoreThanAsked(t *testing.T) {
	t.Parallel()
	p := greedyProducer(`{"max_events_per_second":50,"supports_confirmation_reply":true,"supported_conformance_levels":[1,2,3]}`)
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
	if len(p.requests) != 1 || p.requests[0]["capabilities"].(map[string]any)["max_events_per_second"] != 2.0 {
		t.Errorf("requests %v", p.requests)
	}
}

// With --strict, such a producer gets a subscription.close and the user
// is told why.
func TestStrictClosesOnGreedyProducer(t *testing.T) {
	t.Parallel()
	p := greedyProducer(`{"max_events_per_second":2,"languages":["fr"]}`)
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
