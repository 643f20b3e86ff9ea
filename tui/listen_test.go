package tui

import (
	"reflect"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// The TUI shows what the producer honours, sanitized.
func TestTermsOf(t *testing.T) {
	got := TermsOf(protocol.Capabilities{
		MaxEventsPerSecond: 20, PreferredVerbosity: "terse\x1b[2J", Languages: []string{"yo", "en"},
		EventFilters: &protocol.EventFilters{Include: []string{"aaep:agent.tool.*"}, Exclude: []string{"\x1b]0;x\x07"}},
	})
	want := Terms{Rate: 20, Verbosity: "terse", Languages: []string{"yo", "en"}, Include: []string{"aaep:agent.tool.*"}, Exclude: []string{}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if got := TermsOf(protocol.Capabilities{}); got.Rate != 0 || got.Include != nil || len(got.Languages) != 0 {
		t.Errorf("empty capabilities: %+v", got)
	}
}
