package announce

import (
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

func TestReminder(t *testing.T) {
	at := time.Date(2026, 5, 24, 14, 0, 0, 0, time.UTC)
	yes, no := true, false
	del := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Urgency: protocol.UrgencyNormal,
		Action: "Delete 3 files", Consequence: "They are gone for good", RiskLevel: "high",
		Irreversible: &yes, DefaultDecision: "reject"}
	draft := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Urgency: protocol.UrgencyNormal,
		Action: "Save the draft.", RiskLevel: "low", Irreversible: &no, DefaultDecision: "accept"}
	question := &protocol.Event{Type: protocol.TypeAwaitingClarify, Urgency: protocol.UrgencyNormal,
		Question: "Which account?", DefaultResponse: "chk", HasDefaultResponse: true}
	tests := []struct {
		name     string
		ev       *protocol.Event
		reminder int
		left     time.Duration
		want     string
		priority Priority
	}{
		{"risky, half time", del, 1, 30 * time.Second,
			"Reminder: prompt 4 is still waiting, 30 seconds left: Delete 3 files. Consequence: They are gone for good. Risk: high. " +
				"This cannot be undone. Without an answer the agent will reject.", Critical},
		{"low risk, half time, read in turn", draft, 1, time.Minute,
			"Reminder: prompt 4 is still waiting, 1 minute left: Save the draft. Risk: low. It can be undone. " +
				"Without an answer the agent will accept.", Normal},
		{"low risk, last reminder interrupts", draft, 2, 6 * time.Second,
			"Last reminder: prompt 4 is still waiting, 6 seconds left: Save the draft. Risk: low. It can be undone. " +
				"Without an answer the agent will accept.", Critical},
		{"question", question, 1, 45 * time.Second,
			"Reminder: prompt 4 is still waiting, 45 seconds left: Which account? " +
				"Without an answer the agent will use the answer \"chk\".", Normal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			a := New(Config{}, r)
			a.Deliver(session.Delivery{Kind: session.KindPromptReminder, At: at, Event: tt.ev, Reminder: tt.reminder,
				Prompt: &session.Prompt{Number: 4, Deadline: at.Add(tt.left), Event: tt.ev}})
			if len(r.got) != 1 {
				t.Fatalf("got %d announcements, want 1", len(r.got))
			}
			got := r.got[0]
			if got.Text != tt.want {
				t.Errorf("text\ngot  %q\nwant %q", got.Text, tt.want)
			}
			if got.Priority != tt.priority || got.Kind != "prompt-reminder" {
				t.Errorf("priority %v kind %q, want %v prompt-reminder", got.Priority, got.Kind, tt.priority)
			}
		})
	}
}

func TestLinkAnnouncements(t *testing.T) {
	yes := true
	tool := &protocol.Event{Type: protocol.TypeToolInvoked, Tool: "delete_files", RiskLevel: "high", Irreversible: &yes, Urgency: protocol.UrgencyNormal}
	conf := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.", Urgency: protocol.UrgencyCritical}
	tests := []struct {
		name     string
		d        session.Delivery
		kind     string
		text     string
		priority Priority
	}{
		{"linked tool call", session.Delivery{Kind: session.KindEvent, Event: tool, Note: "Started after you accepted prompt 2."},
			"tool", "Using delete files. High risk, cannot be undone. Started after you accepted prompt 2.", Normal},
		{"safety warning interrupts", session.Delivery{Kind: session.KindSafetyWarning, Event: tool,
			Note: "Tool delete files was started without your confirmation, and it cannot be undone."},
			"safety-warning", "Safety warning: Tool delete files was started without your confirmation, and it cannot be undone.", Critical},
		{"resolved elsewhere", session.Delivery{Kind: session.KindPromptResolved, Event: conf, Prompt: &session.Prompt{Number: 2},
			Note: "Prompt 2 was settled elsewhere and can no longer be answered; the agent is now calling tool."},
			"prompt-resolved", "Prompt 2 was settled elsewhere and can no longer be answered; the agent is now calling tool. It was about: Delete 3 files.", Normal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			New(Config{}, r).Deliver(tt.d)
			if len(r.got) != 1 {
				t.Fatalf("got %d announcements", len(r.got))
			}
			if g := r.got[0]; g.Kind != tt.kind || g.Text != tt.text || g.Priority != tt.priority {
				t.Errorf("got %s %v %q\nwant %s %v %q", g.Kind, g.Priority, g.Text, tt.kind, tt.priority, tt.text)
			}
		})
	}
}
