package line

import (
	"bytes"
	"errors"
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

// writes records each Write's bytes; it fails every write from the
// failAt'th on.
type writes struct {
	got    [][]byte
	failAt int
}

func (w *writes) Write(p []byte) (int, error) {
	if w.failAt > 0 && len(w.got)+1 >= w.failAt {
		return 0, errors.New("disk full")
	}
	w.got = append(w.got, bytes.Clone(p))
	return len(p), nil
}

// The Writer makes each line where it holds it and writes whole lines:
// every write to its output starts and ends a line (a bufio.Writer cut
// them at its 64 KiB), the lines are written in order and no byte
// differs from what Announce was told, a critical line is written at
// once, Flush writes the rest, and a failed write's error is returned
// by every announcement after it.
func TestWriterWritesWholeLines(t *testing.T) {
	out := &writes{}
	w := NewWriter(out, io.Discard, WriterOptions{Location: time.UTC})
	a := announce.New(announce.Config{}, w)
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	var want bytes.Buffer
	ref := NewWriter(&want, io.Discard, WriterOptions{Location: time.UTC})
	r := announce.New(announce.Config{}, ref)
	for i := range 3000 {
		d := floodDelivery(at.Add(time.Duration(i) * time.Millisecond))
		if i%97 == 0 {
			// Long lines too, up to well past the buffer's room.
			d.Event.SummaryNormal = protocol.Text("Long: " + strings.Repeat("word ", i*7))
		}
		a.Deliver(d)
		r.Deliver(d)
		if err := ref.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if len(out.got) == 0 {
		t.Fatal("nothing written before Flush: the lines are held without bound")
	}
	before := len(out.got)
	crit := floodDelivery(at)
	crit.Event.Urgency = protocol.UrgencyCritical
	a.Deliver(crit)
	r.Deliver(crit)
	if len(out.got) != before+1 {
		t.Fatalf("a critical line: %d writes, want 1", len(out.got)-before)
	}
	a.Deliver(floodDelivery(at))
	r.Deliver(floodDelivery(at))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := ref.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, p := range out.got {
		if len(p) == 0 || p[len(p)-1] != '\n' || (i > 0 && out.got[i-1][len(out.got[i-1])-1] != '\n') {
			t.Fatalf("write %d of %d bytes does not hold whole lines", i, len(p))
		}
	}
	if got := bytes.Join(out.got, nil); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the lines differ from those written one at a time (%d and %d bytes)", len(got), want.Len())
	}

	out = &writes{failAt: 1}
	w = NewWriter(out, io.Discard, WriterOptions{Location: time.UTC})
	if err := w.AnnounceRef(&announce.Announcement{At: at, Priority: announce.Critical, Text: "one", Theirs: []protocol.Span{}}); err == nil {
		t.Fatal("a failed write: no error")
	}
	if err := w.AnnounceRef(&announce.Announcement{At: at, Text: "two", Theirs: []protocol.Span{}}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("after a failed write: %v, want its error", err)
	}
	if err := w.Flush(); err == nil {
		t.Fatal("Flush after a failed write: no error")
	}
}
