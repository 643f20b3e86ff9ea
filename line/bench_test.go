package line

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// floodDelivery is one event of the load test's stream (producer.Flood): a
// progress update with the producer's own summary.
func floodDelivery(at time.Time) session.Delivery {
	return session.Delivery{At: at, Kind: session.KindEvent, Event: &protocol.Event{
		Type: protocol.TypeProgressUpdated, SessionID: "sess_0a1b2c3d00000001", Urgency: protocol.UrgencyBackground,
		Producer:      protocol.Producer{AgentID: "aaep-term-flood", AgentName: "Load test producer"},
		Localization:  protocol.LocalizationHints{PrimaryLanguage: "en-US", TextDirection: "ltr"},
		Progress:      protocol.Progress{Step: 12345},
		SummaryNormal: "Load test progress: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.",
	}}
}

// BenchmarkAnnounceLine is the wording and line output of one event of the
// end-to-end flood: the Announcer with a line Writer as its sink.
func BenchmarkAnnounceLine(b *testing.B) {
	w := NewWriter(io.Discard, io.Discard, WriterOptions{Location: time.UTC})
	a := announce.New(announce.Config{}, w)
	d := floodDelivery(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	b.ReportAllocs()
	for b.Loop() {
		a.Deliver(d)
	}
}

// BenchmarkAnnounceLineTypes is BenchmarkAnnounceLine for other events of
// a working agent, with and without the producer's summary.
func BenchmarkAnnounceLineTypes(b *testing.B) {
	yes := true
	for _, ev := range []protocol.Event{
		{Type: protocol.TypeToolInvoked, Tool: "fetch_report", ArgsSummary: "the March figures", RiskLevel: "high", Irreversible: &yes, SummaryNormal: "Fetching the March report."},
		{Type: protocol.TypeToolInvoked, Tool: "fetch_report", ArgsSummary: "the March figures"},
		{Type: protocol.TypeToolCompleted, Tool: "fetch_report", Status: "ok", SummaryNormal: "Fetched the March report."},
		{Type: protocol.TypeToolCompleted, Tool: "fetch_report", Status: "ok"},
		{Type: protocol.TypeSessionCompleted, OutputSummary: "Three reports compared.", SummaryNormal: "All done: three reports compared."},
		{Type: protocol.TypeSessionCompleted, OutputSummary: "Three reports compared."},
	} {
		name := strings.TrimPrefix(ev.Type, "aaep:agent.")
		if ev.SummaryNormal != "" {
			name += "/summary"
		}
		b.Run(name, func(b *testing.B) {
			w := NewWriter(io.Discard, io.Discard, WriterOptions{Location: time.UTC})
			a := announce.New(announce.Config{}, w)
			ev.Producer = protocol.Producer{AgentID: "a", AgentName: "Reporting agent"}
			ev.SessionID = "sess_1"
			d := session.Delivery{At: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Event: &ev}
			b.ReportAllocs()
			for b.Loop() {
				a.Deliver(d)
			}
		})
	}
}

// A Writer that remembers the last second and agent it wrote writes every
// line as a new Writer would: names and times that change, come back,
// differ only in their fraction of a second, or go back in time.
func TestWriterRemembersOnlyTheSame(t *testing.T) {
	at := time.Date(2026, 11, 29, 23, 59, 59, 100, time.UTC)
	lines := []struct {
		at    time.Time
		agent string
	}{
		{at, "Load test producer"},
		{at.Add(800 * time.Millisecond), "Load test producer"},
		{at.Add(900 * time.Millisecond), "وكيل"},
		{at.Add(time.Second), "Load test producer"},
		{at, "Load\x1b[31m producer"},
		{at.Add(-time.Hour), ""},
		{at.Add(-time.Hour), "Load test producer"},
	}
	var all bytes.Buffer
	kept := NewWriter(&all, nil, WriterOptions{Location: time.FixedZone("x", 5400)})
	var want bytes.Buffer
	for _, l := range lines {
		an := announce.Announcement{At: l.at, Agent: l.agent, Text: "Step.", Theirs: []protocol.Span{}}
		if err := kept.Announce(an); err != nil {
			t.Fatal(err)
		}
		fresh := NewWriter(&want, nil, WriterOptions{Location: time.FixedZone("x", 5400)})
		if err := fresh.Announce(an); err != nil {
			t.Fatal(err)
		}
		if err := fresh.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := kept.Flush(); err != nil {
		t.Fatal(err)
	}
	if all.String() != want.String() {
		t.Errorf("a Writer writing on:\n%s\nnew Writers:\n%s", all.String(), want.String())
	}
}

// One event of a flood, put in words and written as a line, allocates
// nothing.
func TestAnnounceLineAllocations(t *testing.T) {
	w := NewWriter(io.Discard, io.Discard, WriterOptions{Location: time.UTC})
	a := announce.New(announce.Config{}, w)
	d := floodDelivery(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	if n := testing.AllocsPerRun(1000, func() { a.Deliver(d) }); n > 0 {
		t.Errorf("a flood event's line allocates %v times, want 0", n)
	}
}
