package protocol

import "testing"

func TestCovers(t *testing.T) {
	for _, tt := range []struct {
		name string
		c, t Event
		want bool
	}{
		{"names nothing", Event{}, Event{Tool: "wipe"}, true},
		{"same call", Event{ToolCallID: "c1", Tool: "x"}, Event{ToolCallID: "c1", Tool: "y"}, true},
		{"another call", Event{ToolCallID: "c1"}, Event{ToolCallID: "c2"}, false},
		{"same correlation", Event{CorrelationID: "k"}, Event{CorrelationID: "k", ToolCallID: "c9"}, true},
		{"same tool", Event{Tool: "wipe"}, Event{Tool: "wipe"}, true},
		{"another tool", Event{Tool: "send_mail"}, Event{Tool: "wipe"}, false},
		{"nothing in common", Event{ToolCallID: "c1"}, Event{Tool: "wipe"}, false},
	} {
		if got := Covers(&tt.c, &tt.t); got != tt.want {
			t.Errorf("%s: Covers = %v, want %v", tt.name, got, tt.want)
		}
	}
	if !UnconfirmedIrreversible(true, false, true) || UnconfirmedIrreversible(true, true, true) ||
		UnconfirmedIrreversible(false, false, true) || UnconfirmedIrreversible(true, false, false) {
		t.Error("UnconfirmedIrreversible decides wrongly")
	}
}
