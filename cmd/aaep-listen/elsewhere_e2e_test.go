package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
)

// Another screen answers a prompt first; the producer keeps the first reply
// (spec §6.7.1) and refuses ours with 409. The listener does not say "the
// prompt is still waiting; try again": it says the prompt was settled
// elsewhere and takes it off the list.
func TestAnswerAfterAnotherScreenAnswered(t *testing.T) {
	sc, err := producer.ParseScenario([]byte(`{"name": "elsewhere", "title": "Two screens",
	  "agent": {"agent_id": "two-screens", "agent_name": "Helper"},
	  "steps": [
	    {"after_ms": 0, "event": {"type": "agent.session.started", "summary_normal": "Paying a bill."}},
	    {"after_ms": 0, "event": {"type": "agent.awaiting.confirmation", "action": "Pay 86.40 euros to Lisbon Energy.",
	      "timeout_seconds": 120, "default_decision": "reject", "risk_level": "high", "irreversible": true,
	      "summary_normal": "Pay the bill?"},
	     "on_accept": [{"after_ms": 60000, "event": {"type": "agent.session.completed", "summary_normal": "Paid."}}],
	     "on_reject": [{"after_ms": 60000, "event": {"type": "agent.session.completed", "summary_normal": "Not paid."}}]}
	  ]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, url := serve(t, producer.Options{Scenarios: []producer.Scenario{sc}, Speed: 1})
	r := startListener(t, "--json", url)
	r.waitOutput(t, `"kind":"confirmation"`)
	var token string
	for _, rec := range records(t, r.stdout()) {
		var ev struct {
			ReplyToken string `json:"reply_token"`
		}
		if rec.Kind == "confirmation" && json.Unmarshal(rec.Event, &ev) == nil {
			token = ev.ReplyToken
		}
	}
	if token == "" {
		t.Fatalf("no reply token in:\n%s", r.stdout())
	}
	other, _ := json.Marshal(map[string]string{"type": "confirmation.reply", "reply_token": token, "decision": "reject",
		"timestamp": time.Now().UTC().Format(time.RFC3339), "decided_by": "user:other-screen"})
	resp, err := http.Post(url+"/messages", "application/json", bytes.NewReader(other))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the other screen's reply: %s", resp.Status)
	}

	if _, err := r.stdin.Write([]byte("accept 1\nyes\n")); err != nil {
		t.Fatal(err)
	}
	r.waitOutput(t, "settled elsewhere")
	out := r.stdout()
	if strings.Contains(out, "still waiting") || strings.Contains(out, "withdrawn by the agent") {
		t.Fatalf("the prompt is told as waiting or withdrawn:\n%s", out)
	}
	if _, err := r.stdin.Write([]byte("pending\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for out := r.stdout(); !strings.Contains(out[strings.Index(out, "settled elsewhere"):], "No prompt is waiting"); out = r.stdout() {
		if time.Now().After(deadline) {
			t.Fatalf("the prompt is still listed as waiting:\n%s", out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
