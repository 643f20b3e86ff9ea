package protocol

import (
	"reflect"
	"testing"
)

// Merge applies only what a renegotiation sets; Renegotiable says whether
// it sets anything.
func TestCapabilitiesMerge(t *testing.T) {
	yes := true
	base := Capabilities{MaxEventsPerSecond: 10, PreferredVerbosity: "terse", Languages: []string{"en"},
		SupportsConfirmationReply: &yes, PaceWPM: 180}
	for _, tc := range []struct {
		name    string
		changes Capabilities
		want    Capabilities
		renego  bool
	}{
		{"nothing", Capabilities{}, base, false},
		{"rate", Capabilities{MaxEventsPerSecond: 2}, func() Capabilities { c := base; c.MaxEventsPerSecond = 2; return c }(), true},
		{"filters and load", Capabilities{EventFilters: &EventFilters{Include: []string{"aaep:agent.tool.*"}}, CognitiveLoad: "low"},
			func() Capabilities {
				c := base
				c.EventFilters, c.CognitiveLoad = &EventFilters{Include: []string{"aaep:agent.tool.*"}}, "low"
				return c
			}(), true},
		{"not renegotiable", Capabilities{SupportedExtensions: []string{"x"}}, base, false},
		{"nobody can answer any more", Capabilities{SupportsConfirmationReply: new(bool), SupportsClarificationReply: new(bool)},
			func() Capabilities {
				c := base
				c.SupportsConfirmationReply, c.SupportsClarificationReply = new(bool), new(bool)
				return c
			}(), true},
	} {
		if got := base.Merge(tc.changes); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: merged %+v, want %+v", tc.name, got, tc.want)
		}
		if got := tc.changes.Renegotiable(); got != tc.renego {
			t.Errorf("%s: renegotiable %v, want %v", tc.name, got, tc.renego)
		}
	}
}
