package announce

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// "set verbosity" takes effect with the next announcement.
func TestSetVerbosity(t *testing.T) {
	r := &recorder{}
	a := New(Config{Verbosity: "normal"}, r)
	ev := func(id string) *protocol.Event {
		e := &protocol.Event{Type: protocol.TypeStateChanged, EventID: id, SessionID: "sess_v"}
		e.SummaryTerse, e.SummaryNormal = "Short.", "The long way of saying it."
		return e
	}
	now := time.Unix(0, 0)
	a.Deliver(session.Delivery{Kind: session.KindEvent, At: now, Event: ev("evt_1")})
	a.SetVerbosity("terse")
	a.Deliver(session.Delivery{Kind: session.KindEvent, At: now, Event: ev("evt_2")})
	a.Flush(now)
	got := r.texts()
	if len(got) != 2 || got[0] == got[1] {
		t.Fatalf("announcements %q: the second should be the terse one", got)
	}
	if !strings.Contains(got[0], "long way") || !strings.Contains(got[1], "Short.") {
		t.Errorf("announcements %q", got)
	}
}
