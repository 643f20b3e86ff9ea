package tui

import (
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Item is one line of the list: an announcement, a diagnostic or a status
// message from the listener. The list sanitizes every field it shows.
type Item struct {
	At        time.Time
	Priority  announce.Priority
	Kind      string // the announcement's kind, "diagnostic" or "status"
	Code      string // the diagnostic's code
	Agent     string
	AgentID   string // the producer's agent_id, a key with SessionID; never shown
	SessionID string
	Text      string
	Event     *protocol.Event // nil for status lines and diagnostics
	EventID   string          // the event a diagnostic is about, when known
}

// ItemFromAnnouncement keeps what the list shows of a.
func ItemFromAnnouncement(a announce.Announcement) Item {
	return Item{At: a.At, Priority: a.Priority, Kind: a.Kind, Agent: a.Agent, AgentID: a.AgentID, SessionID: a.SessionID, Text: a.Text, Event: a.Event}
}

// ItemFromDiagnostic keeps what the list shows of d. Diagnostics are normal
// priority: they matter to developers but never interrupt.
func ItemFromDiagnostic(d session.Diagnostic) Item {
	return Item{At: d.At, Priority: announce.Normal, Kind: "diagnostic", Code: d.Code, SessionID: d.SessionID, Text: d.Message, EventID: d.EventID}
}

// entry is an Item as held in the ring: numbered, marked, with the
// lower-cased text the filter searches. Everything in it is sanitized.
type entry struct {
	Item
	seq      uint64
	marked   bool
	line     string // Text on one line
	typeName string // the event type, or the item's kind for lines that are not events
	toolName string // the tool of tool events
	hay      string // lower-case: type, agent, session, tool, text
}

func newEntry(it Item, seq uint64) entry {
	it.Agent, it.SessionID, it.Text = protocol.Name(it.Agent), protocol.Name(it.SessionID), protocol.Sanitize(it.Text)
	e := entry{Item: it, seq: seq, line: protocol.Line(it.Text), typeName: it.Kind}
	if ev := it.Event; ev != nil {
		if ev.Type != "" {
			e.typeName = protocol.Name(ev.Type)
		}
		e.toolName = protocol.Name(ev.Tool)
	}
	var b strings.Builder
	b.Grow(len(e.line) + 64)
	b.WriteString(e.typ())
	b.WriteByte(' ')
	b.WriteString(it.Agent)
	b.WriteByte(' ')
	b.WriteString(it.SessionID)
	b.WriteByte(' ')
	b.WriteString(e.tool())
	b.WriteByte(' ')
	b.WriteString(e.line)
	e.hay = strings.ToLower(b.String())
	return e
}

// typ is the event type in compact form, or the item's kind for lines that
// are not events.
func (e *entry) typ() string { return e.typeName }

func (e *entry) tool() string { return e.toolName }

// urgency is the urgency in words, as the list shows it.
func (e *entry) urgency() string {
	if e.Kind == "diagnostic" {
		return "diagnostic"
	}
	return e.Priority.String()
}

// shortType drops the "aaep:agent." prefix every core type shares.
func shortType(t string) string {
	t = strings.TrimPrefix(t, "aaep:")
	return strings.TrimPrefix(t, "agent.")
}
