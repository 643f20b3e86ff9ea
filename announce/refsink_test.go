package announce

import (
	"reflect"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// refRecorder is a RefSink: it records what AnnounceRef was given.
type refRecorder struct {
	got  []Announcement
	byAt int // calls of AnnounceRef
}

func (r *refRecorder) Announce(a Announcement) error { r.got = append(r.got, a); return nil }

func (r *refRecorder) AnnounceRef(a *Announcement) error {
	r.byAt++
	r.got = append(r.got, *a)
	return nil
}

// A sink that takes announcements through a pointer (RefSink) is given
// every announcement that way, and gets what a sink taking copies gets,
// beside it, in the same order.
func TestRefSinkGetsWhatASinkGets(t *testing.T) {
	plain, ref := &recorder{}, &refRecorder{}
	a := New(Config{}, plain, ref)
	for _, ev := range []*protocol.Event{
		{Type: protocol.TypeProgressUpdated, SummaryNormal: "Load test progress: 3."},
		{Type: protocol.TypeToolCompleted, Tool: "fetch_report", Status: "ok", SummaryNormal: "Fetched the report."},
		{Type: protocol.TypeSessionErrored, Urgency: protocol.UrgencyCritical, SummaryNormal: "Boom \u202e."},
		chunk("s1", "o1", "Your balance is $5. ", "none", true),
	} {
		ev.Producer = protocol.Producer{AgentID: "flood", AgentName: "Load test producer"}
		a.Deliver(session.Delivery{Event: ev})
	}
	if len(plain.got) == 0 {
		t.Fatal("nothing announced")
	}
	if ref.byAt != len(ref.got) {
		t.Errorf("%d of %d announcements given through a pointer, want all", ref.byAt, len(ref.got))
	}
	if !reflect.DeepEqual(plain.got, ref.got) {
		t.Errorf("the RefSink got\n%+v\nthe Sink got\n%+v", ref.got, plain.got)
	}
}
