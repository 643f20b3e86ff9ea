package announce

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Two agents stream an output of the same session and output IDs: their
// chunks are never joined into one sentence (read under one agent's name),
// and one agent's end does not read out the other's held text.
func TestOutputsOfTwoAgentsKeptApart(t *testing.T) {
	of := func(agent string, ev *protocol.Event) *protocol.Event {
		ev.Producer = protocol.Producer{AgentID: agent, AgentName: protocol.Text(agent)}
		return ev
	}
	r := &recorder{}
	a := New(Config{}, r)
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: of("Bank", chunk("s1", "o1", "Your transfer ", "none", false))})
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: of("Other", chunk("s1", "o1", "was approved by you. ", "none", false))})
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: of("Other", &protocol.Event{Type: protocol.TypeSessionCompleted, SessionID: "s1", SummaryNormal: "Done."})})
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: of("Bank", chunk("s1", "o1", "is on its way.", "none", true))})
	a.Flush(time.Time{})
	var got []string
	for _, an := range r.got {
		got = append(got, an.Agent+": "+an.Text)
	}
	want := []string{"Other: was approved by you.", "Other: Finished: Done.", "Bank: Your transfer is on its way."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
