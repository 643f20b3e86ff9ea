package session

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// A prompt that cannot be answered here (flooded out, or its reply token
// reused) is never told in words that invite an answer, nor as rejected,
// whether its tool call comes before it (the deployed order) or after it.
func TestNotOfferedLinkWording(t *testing.T) {
	wire := func(seq int64) *protocol.Event { return toolCall(seq, "wire_money", "high", true, "") }
	tests := []struct {
		name   string
		cfg    Config
		events []*protocol.Event
	}{
		{"flood, tool after", Config{MaxPendingPerAgent: 1},
			[]*protocol.Event{riskyConfirmation(1, "a", "other_tool"), riskyConfirmation(2, "b", "wire_money"), wire(3)}},
		{"flood, tool first", Config{MaxPendingPerAgent: 1},
			[]*protocol.Event{riskyConfirmation(1, "a", "other_tool"), wire(2), riskyConfirmation(3, "b", "wire_money")}},
		{"reused token, tool after", Config{},
			[]*protocol.Event{riskyConfirmation(1, "a", "other_tool"), riskyConfirmation(2, "a", "wire_money"), wire(3)}},
		{"reused token, tool first", Config{},
			[]*protocol.Event{riskyConfirmation(1, "a", "other_tool"), wire(2), riskyConfirmation(3, "a", "wire_money")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(tt.cfg)
			for _, ev := range tt.events {
				e.Handle(ev, t0)
			}
			for _, x := range r.log {
				if x.d == nil || x.d.Prompt == nil || x.d.Prompt.State != PromptNotOffered || x.d.Prompt.Event.Tool != "wire_money" {
					continue
				}
				for _, bad := range []string{"your answer", "until you answer", "Answer it yourself", "was rejected", "prompt 0"} {
					if strings.Contains(x.d.Note, bad) {
						t.Errorf("%s about a prompt that cannot be answered says %q: %q", x.d.Kind, bad, x.d.Note)
					}
				}
			}
			if strings.HasSuffix(tt.name, "tool after") && !slicesContainsNote(r.deliveries(KindSafetyWarning), "could not be answered here") {
				t.Errorf("no critical warning that the tool ran while its unanswerable confirmation waited")
			}
			if t.Failed() {
				t.Log(r.dump())
			}
		})
	}
}

func slicesContainsNote(ds []Delivery, sub string) bool {
	for _, d := range ds {
		if strings.Contains(d.Note, sub) {
			return true
		}
	}
	return false
}
