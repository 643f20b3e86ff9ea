package subscriber_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// The audit log reads reversibility as the announcement does: a prompt that
// contradicts itself is logged as irreversible.
func TestAuditReadsReversibilityAsAnnounced(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name string
		flag *bool
		rev  string
		want *bool
	}{
		{"flag false, reversibility irreversible", &no, "irreversible", &yes},
		{"flag true, reversibility reversible", &yes, "reversible", &yes},
		{"unknown reversibility", nil, "mostly", &yes},
		{"reversible with effort", &no, "reversible_with_effort", &no},
		{"not said", nil, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Irreversible: tc.flag, Reversibility: tc.rev}
			u := subscriber.Update{Kind: subscriber.KindDelivery, Delivery: session.Delivery{Kind: session.KindEvent, Prompt: &session.Prompt{Number: 1, Event: ev}}}
			r, ok := u.AuditRecord()
			if !ok || r.What != "prompt" {
				t.Fatalf("audit record %+v, %v", r, ok)
			}
			if (r.Irreversible == nil) != (tc.want == nil) || r.Irreversible != nil && *r.Irreversible != *tc.want {
				show := func(b *bool) string {
					if b == nil {
						return "left out"
					}
					return fmt.Sprint(*b)
				}
				t.Errorf("irreversible %s, want %s", show(r.Irreversible), show(tc.want))
			}
		})
	}
}

// A record names the agent it came from when the program gives a label
// (several agents), sanitized to one line, and leaves "agent" out when it
// gives none.
func TestAuditRecordNamesTheAgent(t *testing.T) {
	ev := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Pay", Producer: protocol.Producer{AgentID: "bank"}}
	u := subscriber.Update{Kind: subscriber.KindDelivery, Delivery: session.Delivery{Kind: session.KindEvent, Prompt: &session.Prompt{Number: 1, Event: ev}}}
	for _, tc := range []struct{ label, want string }{
		{"", ""},
		{"mail", "mail"},
		{"ev\x1b[2Jil\nFORGED", protocol.Line("ev\x1b[2Jil\nFORGED")},
	} {
		r, ok := u.AuditRecordOf(tc.label)
		if !ok || r.Agent != tc.want || r.AgentID != "bank" {
			t.Errorf("label %q: record %+v, %v; want agent %q", tc.label, r, ok, tc.want)
		}
		if strings.ContainsAny(r.Agent, "\x1b\n") {
			t.Errorf("label %q reached the log raw: %q", tc.label, r.Agent)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(b), `"agent":`); has != (tc.label != "") {
			t.Errorf("label %q: record %s", tc.label, b)
		}
	}
	if r, _ := u.AuditRecord(); r.Agent != "" {
		t.Errorf("AuditRecord names agent %q", r.Agent)
	}
}

// A prompt that stops waiting is logged with what happened (issue 24 item
// 3): only a prompt whose time ran out is "expired"; quitting, the agent
// going away and the subscription ending each say so, and the default
// decision is logged as applied only where the producer was told.
func TestAuditSaysWhyAPromptStoppedWaiting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cause    session.Cause
		what     string
		decision string
	}{
		{session.CauseTimeout, "expired", "reject"},
		{session.CauseQuit, "quit", "reject"},
		{session.CauseQuitUntold, "quit-untold", ""},
		{session.CauseGone, "agent-gone", ""},
		{session.CauseEnded, "subscription-ended", "reject"},
	} {
		t.Run(tc.cause.String(), func(t *testing.T) {
			ev := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, DefaultDecision: "reject"}
			p := &session.Prompt{Number: 1, Event: ev, State: session.PromptExpired, Decision: "reject", DecidedBy: "default"}
			u := subscriber.Update{Kind: subscriber.KindDelivery, Delivery: session.Delivery{Kind: session.KindPromptExpired, Prompt: p, Event: ev, Cause: tc.cause}}
			r, ok := u.AuditRecord()
			if !ok || r.What != tc.what || r.Decision != tc.decision {
				t.Errorf("audit record what %q, decision %q (%v); want %q, %q", r.What, r.Decision, ok, tc.what, tc.decision)
			}
		})
	}
}
