package line

import (
	"io"
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
