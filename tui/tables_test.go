package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

// Two agents that share a session id (and even a name) keep their own rows:
// agent B's session ending never shows on agent A's row, nor A's prompt on B's.
func TestSessionRowsPerAgent(t *testing.T) {
	item := func(agentID, typ, kind string, i int) Item {
		ev := &protocol.Event{Type: typ, SessionID: "sess_shared", Producer: protocol.Producer{AgentID: agentID, AgentName: "Helper"}}
		an := announce.Announcement{At: t0.Add(time.Duration(i) * time.Second), Kind: kind, Agent: "Helper",
			AgentID: agentID, SessionID: "sess_shared", Text: kind, Event: ev}
		return ItemFromAnnouncement(an)
	}
	tab := newSessionTable()
	for i, it := range []Item{
		item("agent-a", protocol.TypeSessionStarted, "started", 0),
		item("agent-b", protocol.TypeSessionStarted, "started", 1),
		item("agent-b", protocol.TypeSessionCompleted, "completed", 2),
	} {
		e := newEntry(it, uint64(i))
		tab.add(&e)
	}
	lines := tab.lines([]Prompt{{Number: 1, SessionID: "sess_shared", AgentID: "agent-a"}})
	want := []string{
		"2 sessions, most recently active first:",
		"Session sess_shared, Helper, completed, 2 events, 0 critical",
		"Session sess_shared, Helper, active, 1 events, 0 critical, prompt 1 waiting",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("sessions view:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
