package tui

// agents.go: the view of a listener watching several agents: the list's
// agent column and agent filter, the agents view, and the keys that ask
// the listener to mute, hear only or quit one of them.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
)

// Agent is what the agents view shows of one agent the listener watches.
// The listener fills it in on its own goroutine (SetAgents); the view
// sanitizes every field before drawing it.
type Agent struct {
	// Label names the agent as the list does (Item.Agent): the label the
	// listener chose, else the agent's name. Actions about the agent carry
	// it back exactly as given.
	Label    string
	Endpoint string
	State    string // the connection in words: "connected", "reconnecting", "closed"…
	Terms    string // the terms the producer honours, in words
	Pending  int    // prompts waiting for an answer
	Events   int    // events received so far
	Muted    bool   // only its critical events and prompts come through
	Tasks    bool   // it takes tasks: started as acp:COMMAND (the task key gives it one)
}

// AgentsMsg replaces the agents the view lists (tests; the listener uses
// SetAgents).
type AgentsMsg []Agent

// SetAgents replaces the agents the agents view lists, in the listener's
// order; it takes effect at Flush. More than one agent brings the list's
// agent column; one agent alone leaves the list as it is.
func (pr *Program) SetAgents(as []Agent) {
	pr.in.mu.Lock()
	pr.in.agents, pr.in.agentsSet = append([]Agent(nil), as...), true
	pr.in.mu.Unlock()
}

// agentRow is an Agent as the view holds it: sanitized to be shown, with
// the label as the listener gave it, for the actions.
type agentRow struct {
	Agent        // sanitized
	raw   string // Label as given
}

func newAgentRow(a Agent) agentRow {
	raw := a.Label
	a.Label, a.Endpoint, a.State = protocol.Name(a.Label), protocol.Name(a.Endpoint), protocol.Line(a.State)
	a.Terms = protocol.Line(a.Terms)
	return agentRow{Agent: a, raw: raw}
}

// narrowAgentWidth is the agent column's width when the screen is narrow.
const narrowAgentWidth = 8

// setAgents replaces the agents listed, keeping the selection on the same
// agent when it is still there.
func (m *Model) setAgents(as []Agent) {
	was := ""
	if m.agentSel < len(m.agents) {
		was = m.agents[m.agentSel].raw
	}
	m.agents = m.agents[:0]
	m.agentSel = 0
	for _, a := range as {
		r := newAgentRow(a)
		if r.raw == was {
			m.agentSel = len(m.agents)
		}
		m.agents = append(m.agents, r)
		if len(as) > 1 {
			// One agent listed is no second agent seen, whatever name
			// its events give.
			m.seeAgent(r.Label)
		}
	}
}

// seeAgent notes an agent's name, as shown, for the agent column: it
// appears with the second agent seen, as wide as the longest name (at most
// maxAgentWidth).
func (m *Model) seeAgent(name string) {
	switch {
	case name == "" || name == m.lastAgent || m.agentCol == maxAgentWidth:
		return
	case m.firstAgent == "":
		m.firstAgent = name
		return
	case m.agentCol == 0 && name == m.firstAgent:
		return
	case m.agentCol == 0:
		m.agentCol = max(ansi.StringWidth(m.firstAgent), 1) // 0 is one agent
	}
	m.agentCol = min(max(m.agentCol, ansi.StringWidth(name)), maxAgentWidth)
	m.lastAgent = name // a run of one agent's events is measured once
}

// severalAgents reports whether more than one agent has been seen.
func (m *Model) severalAgents() bool { return m.agentCol > 0 }

// agentLets reports whether the agent filter lets e through.
func (m *Model) agentLets(e *entry) bool { return m.agentOnly == "" || e.Agent == m.agentOnly }

// filtered reports whether a filter, typed or by agent, narrows the list.
func (m *Model) filtered() bool { return !m.filter.Empty() || m.agentOnly != "" }

// filterAgent lists only the events of the agent named as shown ("" every
// agent's); critical events of every agent stay listed.
func (m *Model) filterAgent(name string) {
	m.agentOnly = name
	m.applyFilter(m.filter)
	if name == "" {
		m.message = "Listing every agent's events."
		return
	}
	m.message = fmt.Sprintf("Listing only %s's events; critical events of the other agents are still listed, and their prompts still shown. Press %s for every agent's.",
		name, keyName(m.keys.AgentFilter))
}

// agentFilterKey lists only the selected agent's events (in the agents
// view, the agent selected there; else the selected event's), or every
// agent's again.
func (m *Model) agentFilterKey() {
	switch {
	case m.view == viewAgents && len(m.agents) > 0:
		m.view = viewEvents
		m.filterAgent(m.agents[m.agentSel].Label)
	case m.view == viewAgents:
		m.message = "No agents known yet."
	case m.agentOnly != "":
		m.filterAgent("")
	default:
		e := m.ring.get(m.selected)
		if e == nil || e.Agent == "" {
			m.message = "The selected line names no agent."
			return
		}
		m.filterAgent(e.Agent)
	}
}

// agentKey asks the listener to act on the agent selected in the agents
// view. Only there: in the list the selected event changes as events
// arrive, and the agent acted on must be the one the user chose.
func (m *Model) agentKey(kind ActionKind) {
	if m.view != viewAgents {
		m.message = "Choose the agent first: press " + keyName(m.keys.Agents) + " for the agents view."
		return
	}
	if len(m.agents) == 0 {
		m.message = "No agents known yet."
		return
	}
	a := m.agents[m.agentSel]
	switch {
	case kind == ActionMute && a.Muted:
		kind = ActionUnmute
	case kind == ActionQuitAgent:
		m.quitAsk = a.raw
		m.message = fmt.Sprintf("Press %s again to quit %s: its subscription closes, the other agents go on. Any other key keeps it.",
			keyName(m.keys.QuitAgent), a.Label)
		return
	}
	m.act(Action{Kind: kind, Agent: a.raw})
}

// confirmQuitAgent takes the key after the quit-agent key: the same key
// again quits the agent it named, any other keeps it (and does what it
// does). It reports whether the key was taken.
func (m *Model) confirmQuitAgent(quit bool) bool {
	ask := m.quitAsk
	m.quitAsk = ""
	if quit {
		m.act(Action{Kind: ActionQuitAgent, Agent: ask})
		return true
	}
	m.message = "Kept " + protocol.Name(ask) + ": not quit."
	return false
}

// moveAgent moves the agents view's selection by delta rows.
func (m *Model) moveAgent(delta int) {
	if len(m.agents) > 0 {
		m.agentSel = min(max(m.agentSel+delta, 0), len(m.agents)-1)
		m.message = m.agentWords()
	}
}

// agentWords says the selected agent whole, in words, for the message
// line: on a narrow screen the table's row is cut, the message wraps.
func (m *Model) agentWords() string {
	if len(m.agents) == 0 {
		return "Showing agents: none known yet."
	}
	a := m.agents[m.agentSel]
	parts := []string{a.Label + ":"}
	if a.State != "" {
		parts = append(parts, a.State+",")
	}
	if a.Muted {
		parts = append(parts, "muted,")
	} else {
		parts = append(parts, "heard,")
	}
	parts = append(parts, prose.Count(a.Pending, "prompt", "prompts")+" waiting,", prose.Count(a.Events, "event", "events"))
	if a.Endpoint != "" {
		parts[len(parts)-1] += ","
		parts = append(parts, "endpoint "+a.Endpoint)
	}
	if a.Terms != "" {
		parts[len(parts)-1] += ","
		parts = append(parts, "terms: "+a.Terms)
	}
	return strings.Join(parts, " ") + "."
}

// agentsView draws the agents view in n rows: a caption in words, a header
// and one row an agent, each cell saying what it is. It returns the
// selected agent's row (the caption's when there is none).
func (m *Model) agentsView(n int) (rows []string, sel int) {
	if len(m.agents) == 0 {
		return m.fit([]string{"Agents: none known yet."}, n), 0
	}
	k := m.keys
	caption := fmt.Sprintf("Agents: %d, the selected one marked >. Keys: %s mute or unmute, %s hear only it, %s hear all, %s list only its events, %s quit it.",
		len(m.agents), keyName(k.Mute), keyName(k.Only), keyName(k.AllAgents), keyName(k.AgentFilter), keyName(k.QuitAgent))
	head := m.wrapRows(caption, maxMessageRows)
	cells := [][]string{{"Agent", "State", "Sound", "Prompts", "Events", "Endpoint", "Terms"}}
	for _, a := range m.agents {
		sound, prompts := "heard", "none"
		if a.Muted {
			sound = "muted"
		}
		if a.Pending > 0 {
			prompts = strconv.Itoa(a.Pending) + " waiting"
		}
		cells = append(cells, []string{a.Label, a.State, sound, prompts, strconv.Itoa(a.Events), a.Endpoint, a.Terms})
	}
	table := tableRows(cells, []int{maxAgentWidth, 14, 5, 12, 9, 40, 0})
	body := max(n-len(head)-1, 1) // the rows left for agents
	top := max(min(m.agentSel-body/2, len(m.agents)-body), 0)
	rows = append(head, "  "+table[0])
	for i := top; i < len(m.agents) && i < top+body; i++ {
		mark := "  "
		if i == m.agentSel {
			mark, sel = "> ", len(rows)
		}
		rows = append(rows, mark+table[i+1])
	}
	return m.fit(rows, n), sel
}

// tableRows lays cells out in columns as wide as their widest cell, each
// cut at its limit in widths (0: no limit), two spaces between them.
func tableRows(cells [][]string, widths []int) []string {
	w := make([]int, len(widths))
	for _, row := range cells {
		for i, c := range row {
			cw := ansi.StringWidth(c)
			if widths[i] > 0 {
				cw = min(cw, widths[i])
			}
			w[i] = max(w[i], cw)
		}
	}
	out := make([]string, len(cells))
	for r, row := range cells {
		var b strings.Builder
		for i, c := range row {
			if i == len(row)-1 {
				b.WriteString(c)
				break
			}
			c = ansi.Truncate(c, w[i], "…")
			b.WriteString(c + strings.Repeat(" ", w[i]-ansi.StringWidth(c)+2))
		}
		out[r] = strings.TrimRight(b.String(), " ")
	}
	return out
}
