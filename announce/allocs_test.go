package announce

import (
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// An event with the producer's own summary is announced in those words
// alone: the sentence of ours it replaces is not built, so putting it in
// words is the one allocation of marking the summary as theirs.
func TestDescribeSummaryAllocations(t *testing.T) {
	for _, ev := range []*protocol.Event{
		{Type: protocol.TypeProgressUpdated, Progress: protocol.Progress{Step: 3, TotalSteps: 9}, SummaryNormal: "Load test progress: 3."},
		{Type: protocol.TypeStateChanged, ToState: "thinking", SummaryNormal: "Thinking it over."},
		{Type: protocol.TypeSessionStarted, RequestText: "Summarize", SummaryNormal: "Started on it."},
	} {
		d := session.Delivery{Event: ev}
		if a := testing.AllocsPerRun(200, func() { _, _ = describe(d, "normal") }); a > 1 {
			t.Errorf("%s with a summary: describe allocates %v times, want 1", ev.Type, a)
		}
	}
}
