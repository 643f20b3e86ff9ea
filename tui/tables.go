package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// maxSessions bounds the sessions view; the least recently active is dropped.
const maxSessions = 1000

// sessionTable is what the sessions view shows: per session its state, the
// tools in flight and counts. A session is known by its agent and its id
// together: two agents may use the same session id.
type sessionTable struct {
	byID map[sessionKey]*sessionRow
}

// sessionKey is a session as the engine knows it: agent_id and session_id.
type sessionKey struct{ agentID, sessionID string }

type sessionRow struct {
	key              sessionKey
	id, agent, state string
	last             time.Time
	events, critical int
	tools            map[string]string // tool call id → tool name, in flight
}

func newSessionTable() *sessionTable { return &sessionTable{byID: map[sessionKey]*sessionRow{}} }

func (t *sessionTable) add(e *entry) {
	if e.SessionID == "" || e.Kind == "diagnostic" || e.Kind == "status" {
		return
	}
	k := sessionKey{e.AgentID, e.SessionID}
	r := t.byID[k]
	if r == nil {
		if len(t.byID) >= maxSessions {
			t.dropOldest()
		}
		r = &sessionRow{key: k, id: e.SessionID, state: "active", tools: map[string]string{}}
		t.byID[k] = r
	}
	r.last = e.At
	r.events++
	if e.Agent != "" {
		r.agent = e.Agent
	}
	if e.Priority == 2 {
		r.critical++
	}
	ev := e.Event
	if ev == nil {
		return
	}
	switch ev.Type {
	case protocol.TypeStateChanged:
		r.state = protocol.Name(ev.ToState)
	case protocol.TypeSessionCompleted:
		r.state = "completed"
	case protocol.TypeSessionErrored:
		r.state = "errored"
	case protocol.TypeSessionCancelled:
		r.state = "cancelled"
	case protocol.TypeToolInvoked:
		if len(r.tools) < 100 {
			r.tools[ev.ToolCallID] = protocol.Name(ev.Tool)
		}
	case protocol.TypeToolCompleted:
		delete(r.tools, ev.ToolCallID)
	}
}

func (t *sessionTable) dropOldest() {
	var oldest *sessionRow
	for _, r := range t.byID {
		if oldest == nil || r.last.Before(oldest.last) {
			oldest = r
		}
	}
	delete(t.byID, oldest.key)
}

func (t *sessionTable) lines(prompts []Prompt) []string {
	if len(t.byID) == 0 {
		return []string{"No sessions yet."}
	}
	rows := make([]*sessionRow, 0, len(t.byID))
	for _, r := range t.byID {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].last.After(rows[j].last) })
	out := []string{fmt.Sprintf("%d sessions, most recently active first:", len(rows))}
	for _, r := range rows {
		var tools []string
		for _, name := range r.tools {
			tools = append(tools, name)
		}
		sort.Strings(tools)
		l := fmt.Sprintf("Session %s, %s, %s, %d events, %d critical", r.id, r.agent, r.state, r.events, r.critical)
		for _, p := range prompts {
			if p.SessionID == r.id && p.AgentID == r.key.agentID {
				l += fmt.Sprintf(", prompt %d waiting", p.Number)
			}
		}
		if len(tools) > 0 {
			l += ", tools in flight: " + strings.Join(tools, ", ")
		}
		out = append(out, l)
	}
	return out
}

// maxDiagnostics bounds the diagnostics view and the per-event index.
const maxDiagnostics = 1000

// diagTable counts diagnostics by code and keeps the latest.
type diagTable struct {
	counts  map[string]int
	latest  []*entry // newest last; entries are copied, not the ring's
	byEvent map[string][]string
}

func (t *diagTable) add(e *entry) {
	if t.counts == nil {
		t.counts, t.byEvent = map[string]int{}, map[string][]string{}
	}
	t.counts[e.Code]++
	c := *e
	t.latest = append(t.latest, &c)
	if len(t.latest) > maxDiagnostics {
		t.latest = t.latest[len(t.latest)-maxDiagnostics:]
	}
	if e.EventID != "" {
		if len(t.byEvent) >= maxDiagnostics {
			clear(t.byEvent)
		}
		t.byEvent[e.EventID] = append(t.byEvent[e.EventID], e.line)
	}
}

func (t *diagTable) forEvent(id string) []string { return t.byEvent[id] }

func (t *diagTable) lines(loc *time.Location) []string {
	if len(t.counts) == 0 {
		return []string{"No diagnostics: every event so far was valid, in order and unique."}
	}
	codes := make([]string, 0, len(t.counts))
	for c := range t.counts {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%s %d", c, t.counts[c]))
	}
	out := []string{"Diagnostics by kind: " + strings.Join(parts, ", ") + ". Newest first:"}
	for i := len(t.latest) - 1; i >= 0; i-- {
		e := t.latest[i]
		out = append(out, e.At.In(loc).Format("15:04:05.000")+" "+e.Code+": "+e.line)
	}
	return out
}
