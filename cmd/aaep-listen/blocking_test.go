package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
)

// confirmWithTimeout is the confirm scenario (a payment that cannot be
// undone; the producer blocks until a reply or its timeout) with
// timeout_seconds set to secs.
func confirmWithTimeout(t *testing.T, secs int) []producer.Scenario {
	t.Helper()
	data, err := os.ReadFile("../../demo/scenarios/confirm.json")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), `"timeout_seconds": 120`, fmt.Sprintf(`"timeout_seconds": %d`, secs), 1)
	sc, err := producer.ParseScenario([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return []producer.Scenario{sc}
}

// The producer blocks on the confirmation until the listener's reply, or
// its deadline: what the user does decides whether the tool runs.
func TestProducerBlocksUntilTheReply(t *testing.T) {
	t.Parallel()
	const payment = "Sending 86.40 euros to Lisbon Energy." // the transfer_money tool call
	const followUp = "No go-ahead; the payment is off."     // the producer's follow-up on reject
	for _, tc := range []struct {
		name    string
		typed   []string // typed once the confirmation is announced
		timeout int
		want    producer.Resolution
		say     []string
		never   []string
	}{
		{"accept: the tool runs", []string{"accept 1", "yes"}, 120, producer.Accepted, // a payment: two steps
			[]string{"Sent your answer to prompt 1: accept.", payment, "Started after you accepted prompt 1."},
			[]string{followUp, "Safety warning"}},
		{"reject: a follow-up, and the tool never runs", []string{"reject 1 because the amount looks wrong"}, 120, producer.Rejected,
			[]string{"Sent your answer to prompt 1: reject, because the amount looks wrong.", followUp},
			[]string{payment}},
		{"a second answer is never sent", []string{"reject 1", "accept 1"}, 120, producer.Rejected,
			[]string{"Prompt 1 is already answered.", followUp},
			[]string{payment, "Sent your answer to prompt 1: accept."}},
		// A reminder, whichever the clock allows: the last one is due 0.4 s
		// before the deadline, which a busy machine's timer can miss (1 run
		// in 20 under load said the first and then the expiry). When each is
		// due, with a clock of the test's, is session's TestPromptRemindersAndExpiry.
		{"no answer: a reminder, then the default reject at the deadline", nil, 4, producer.TimedOut,
			[]string{"prompt 1 is still waiting", "Prompt 1 expired without an answer:", "The default decision applies: reject.", followUp},
			[]string{payment, "Sent your answer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, url := serve(t, producer.Options{Scenarios: confirmWithTimeout(t, tc.timeout)})
			r := startListener(t, "--plain", "--no-sign", url)
			r.waitOutput(t, "Confirmation needed, prompt 1:")
			for _, s := range tc.typed {
				fmt.Fprintln(r.stdin, s)
			}
			r.wait(t)
			outs := p.Outcomes()
			if len(outs) != 1 || outs[0].Resolution != tc.want {
				t.Fatalf("producer outcomes %+v, want %v\n%s", outs, tc.want, r.stdout())
			}
			if why, _, _ := strings.Cut(strings.Join(tc.typed, "\n"), "\n"); strings.Contains(why, " because ") {
				if _, want, _ := strings.Cut(why, " because "); outs[0].Rationale != want {
					t.Errorf("the producer got the reason %q, want %q", outs[0].Rationale, want)
				}
			} else if outs[0].Rationale != "" {
				t.Errorf("a reason nobody typed reached the producer: %q", outs[0].Rationale)
			}
			if tc.want == producer.TimedOut && outs[0].Decision != "reject" {
				t.Fatalf("the default applied was %q", outs[0].Decision)
			}
			out := r.stdout()
			for _, s := range tc.say {
				if !strings.Contains(out, s) {
					t.Errorf("output does not say %q", s)
				}
			}
			for _, s := range tc.never {
				if strings.Contains(out, s) {
					t.Errorf("output says %q", s)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}

// A producer that runs an irreversible high-risk tool without asking gets a
// critical safety warning, in --json as on every output.
func TestUnconfirmedToolWarnsInJSON(t *testing.T) {
	t.Parallel()
	sc, err := producer.ParseScenario([]byte(`{"name": "rogue", "title": "Deletes without asking",
	  "agent": {"agent_id": "rogue", "agent_name": "Rogue"},
	  "steps": [{"after_ms": 0, "event": {"type": "agent.session.started", "summary_normal": "Cleaning up."}},
	    {"after_ms": 20, "event": {"type": "agent.tool.invoked", "tool": "delete_files", "tool_call_id": "call_1",
	      "risk_level": "high", "irreversible": true, "summary_normal": "Deleting your files."}},
	    {"after_ms": 20, "event": {"type": "agent.tool.completed", "tool": "delete_files", "tool_call_id": "call_1",
	      "status": "success", "summary_normal": "Deleted."}},
	    {"after_ms": 20, "event": {"type": "agent.session.completed", "summary_normal": "Done."}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, url := serve(t, producer.Options{Scenarios: []producer.Scenario{sc}})
	r := startListener(t, "--json", "--no-sign", url)
	r.wait(t)
	var warnings []jsonAnnouncement
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout()), "\n") {
		var rec jsonAnnouncement
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON record: %q", line)
		}
		if rec.Record == "announcement" {
			order = append(order, rec.Kind)
		}
		if rec.Kind == "safety-warning" {
			warnings = append(warnings, rec)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("%d safety warnings, want 1:\n%s", len(warnings), r.stdout())
	}
	w := warnings[0]
	if w.Priority != "critical" || w.Text != "Safety warning: Tool delete files was started without your confirmation, and it cannot be undone." {
		t.Errorf("warning %+v", w)
	}
	// Told before the tool's completion, which is what revealed it.
	if i := strings.Index(strings.Join(order, ","), "safety-warning,tool-done"); i < 0 {
		t.Errorf("announcement order %v", order)
	}
}

type jsonAnnouncement struct {
	Record   string `json:"record"`
	Kind     string `json:"kind"`
	Priority string `json:"priority"`
	Text     string `json:"text"`
}
