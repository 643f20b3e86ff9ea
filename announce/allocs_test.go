package announce

import (
	"slices"
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

type discard struct{}

func (discard) Announce(Announcement) error { return nil }

// An event announced in its producer's words alone reaches the sinks
// without a string or a slice made for it: the words are not marked as
// theirs to be unmarked again, and their one span comes from a block.
func TestDeliverSummaryAllocations(t *testing.T) {
	a := New(Config{}, discard{})
	for _, ev := range []*protocol.Event{
		{Type: protocol.TypeProgressUpdated, Progress: protocol.Progress{Step: 3}, SummaryNormal: "Load test progress: 3."},
		{Type: protocol.TypeStateChanged, ToState: "thinking", SummaryNormal: "Thinking it over."},
		{Type: protocol.TypeSessionStarted, RequestText: "Summarize", SummaryNormal: "Started on it."},
		{Type: protocol.TypeToolCompleted, Tool: "fetch_report", Status: "ok", SummaryNormal: "Fetched the report."},
	} {
		ev.Producer = protocol.Producer{AgentID: "flood", AgentName: "Load test producer"}
		d := session.Delivery{Event: ev}
		if n := testing.AllocsPerRun(1000, func() { a.Deliver(d) }); n > 0 {
			t.Errorf("%s with a summary: Deliver allocates %v times, want 0", ev.Type, n)
		}
	}
}

type record struct{ got []Announcement }

func (r *record) Announce(an Announcement) error { r.got = append(r.got, an); return nil }

// The producer's words announced alone, unmarked, read as they read when
// marked and unmarked again: the same text and the same span, whatever
// their edges and characters.
func TestTheirsAloneAsMarked(t *testing.T) {
	for _, summary := range []string{"Load test progress: 3.", "x", " padded ", "\tTab.", "“Quoted”", "Ends in é", "ש", "a\u2068b", "   ", ""} {
		r := &record{}
		a := New(Config{}, r)
		ev := &protocol.Event{Type: protocol.TypeProgressUpdated, SummaryNormal: protocol.Text(summary)}
		a.Deliver(session.Delivery{Event: ev})
		text, spans := protocol.SplitTheirs(protocol.Theirs(ev.SummaryNormal.String()))
		switch {
		case summary == "":
			if len(r.got) != 1 || r.got[0].Text != progressWords(ev) {
				t.Errorf("%q: got %+v, want our own words", summary, r.got)
			}
			continue
		case text == "": // blank words of theirs: nothing to say
			if len(r.got) != 0 {
				t.Errorf("%q: got %+v, want nothing", summary, r.got)
			}
			continue
		}
		if len(r.got) != 1 || r.got[0].Text != text || !slices.Equal(r.got[0].Theirs, spans) {
			t.Errorf("%q: got %+v, want %q %v", summary, r.got, text, spans)
		}
	}
}

// The producer's summary in place of our words: ours are not built to be
// thrown away. Marking the summary as theirs and adding our label or the
// risk are the two allocations.
func TestDescribeSummaryInsteadOfOurs(t *testing.T) {
	yes := true
	for _, ev := range []*protocol.Event{
		{Type: protocol.TypeToolInvoked, Tool: "fetch_report", ArgsSummary: "the March figures", RiskLevel: "high", Irreversible: &yes, SummaryNormal: "Fetching the report."},
		{Type: protocol.TypeSessionCompleted, OutputSummary: "Three reports compared.", SummaryNormal: "All done."},
		{Type: protocol.TypeHandoffRequested, Reason: "It needs a person.", SummaryNormal: "Handing over to you."},
	} {
		d := session.Delivery{Event: ev}
		if a := testing.AllocsPerRun(200, func() { _, _ = describe(d, "normal") }); a > 2 {
			t.Errorf("%s with a summary: describe allocates %v times, want 2 at most", ev.Type, a)
		}
	}
}
