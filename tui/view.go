package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

// View implements tea.Model. Only the rows on screen are drawn, so the cost
// does not grow with the number of events held.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	lines := make([]string, 0, m.height)
	lines = append(lines, m.styles.Status.Render(m.truncate(m.statusLine())))
	for _, l := range m.connectionRows() {
		lines = append(lines, m.styles.Status.Render(m.truncate(l)))
	}
	cursorRow := -1
	if len(m.prompts) > 0 {
		if m.promptFocus {
			cursorRow = len(lines)
		}
		lines = append(lines, m.promptView()...)
	}
	body := m.listHeight()
	col := 0
	switch {
	case m.mode == modeForm:
		rows, row, c := m.formView(body)
		cursorRow, col = len(lines)+row, c
		lines = append(lines, rows...)
	case m.mode == modeHelp:
		cursorRow = len(lines)
		lines = append(lines, m.fit(m.helpLines(body), body)...)
	case m.mode == modeAnswer && m.clar.widget() == widgetChoice:
		rows, row, _ := m.clarifyView(body)
		cursorRow = len(lines) + row
		lines = append(lines, rows...)
	case m.view == viewSessions:
		lines = append(lines, m.fit(m.sessions.lines(m.prompts), body)...)
	case m.view == viewDiagnostics:
		lines = append(lines, m.fit(m.diags.lines(m.opts.Location), body)...)
	case m.view == viewAgents:
		rows, sel := m.agentsView(body)
		if cursorRow < 0 {
			cursorRow = len(lines) + sel
		}
		lines = append(lines, rows...)
	default:
		rows, sel := m.listView(body)
		if cursorRow < 0 && sel >= 0 {
			cursorRow = len(lines) + sel
		}
		lines = append(lines, rows...)
	}
	if m.showDetail {
		lines = append(lines, m.fit(m.detailView(), m.detailHeight())...)
	}
	lines = append(lines, m.wrapRows(m.message, maxMessageRows)...)
	switch {
	case m.mode == modeAnswer && m.clar.widget() == widgetYesNo:
		label := m.clar.answerLabel()
		cursorRow, col = len(lines), ansi.StringWidth(label)
		lines = append(lines, m.truncate(label))
	case m.mode == modeFilter || m.mode == modeCommand || m.mode == modeTask || m.mode == modeAnswer && m.clar.widget() != widgetChoice:
		label := "Filter: "
		switch m.mode {
		case modeAnswer:
			label = m.clar.answerLabel()
		case modeCommand:
			label = "Command: "
		case modeTask:
			label = m.taskLabel()
		}
		cursorRow = len(lines)
		col = ansi.StringWidth(label) + m.input.column()
		lines = append(lines, m.truncate(label+m.input.String()))
	default:
		lines = append(lines, m.styles.Help.Render(m.truncate(m.footer())))
	}
	if cursorRow < 0 {
		cursorRow = len(lines) - 1
	}
	m.cur.set(len(lines)-1-cursorRow, min(col, m.width-1), true)
	return strings.Join(lines, "\n")
}

// fit pads or cuts lines to exactly n, each no wider than the screen.
func (m *Model) fit(lines []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(lines) {
			out[i] = m.truncate(lines[i])
		}
	}
	return out
}

func (m *Model) statusLine() string {
	state := "FOLLOWING"
	if !m.following {
		state = fmt.Sprintf("PAUSED, %d new", m.ring.last()-m.pausedAt)
	}
	if m.ended {
		// First, so it is read first: nothing more will come.
		state = "The stream has ended; press " + keyName(m.keys.Quit) + " to quit | " + state
	}
	s := fmt.Sprintf("%s | %s | %d of %d events shown | %d/s in, %d/s shown, %s sent", state, m.view, m.shown(), m.ring.len(), m.rateIn.rate, m.rateOut.rate, prose.Count(m.replies, "reply", "replies"))
	if !m.filter.Empty() {
		s += " | filter: " + m.filter.String()
	}
	if m.agentOnly != "" {
		s += " | only agent " + m.agentOnly
	}
	if n := len(m.prompts); n > 0 {
		s += fmt.Sprintf(" | %d prompt(s) waiting", n)
	}
	return s
}

// promptView draws the first prompt waiting: its headline, wrapped so the
// risk, default and time left are never cut off, the keys, the details when
// asked for, and the other prompts waiting.
func (m *Model) promptView() []string {
	head, rest := m.promptRows()
	lines := make([]string, 0, len(head)+len(rest))
	for _, h := range head {
		lines = append(lines, m.styles.Title.Render(h))
	}
	return append(lines, rest...)
}

// promptRows are the prompt's rows unstyled: the headline's, then the rest.
func (m *Model) promptRows() (head, rest []string) {
	p := &m.prompts[0]
	// The headline in maxPromptRows rows when it fits; else what the
	// prompt asks and the facts each get rows of their own, cut when they
	// need more: however long the producer's words, neither pushes the
	// other off the screen. On a narrow screen whose facts take two rows,
	// the headline takes one more than maxPromptRows.
	lead, facts := p.headParts(m.opts.Now())
	if head = m.wrapRows(prose.Join(append([]string{lead}, facts...)...), maxPromptRows+1); len(head) > maxPromptRows {
		var factRows []string
		if len(facts) > 0 {
			factRows = m.wrapRows(prose.Join(facts...), maxPromptRows-1)
		}
		head = append(m.wrapRows(prose.Join(lead), max(2, maxPromptRows-len(factRows))), factRows...)
	}
	if m.mode != modeHelp { // the help lists the keys
		rest = m.wrapRows(p.keysLine(m.keys), maxPromptRows)
	}
	var also []string
	if len(m.prompts) > 1 {
		also = m.alsoWaiting()
	}
	if m.promptDetail && m.mode != modeHelp {
		// The details wrap between words, in the rows the screen has left
		// once the status line, the message, the footer and a row of the
		// list have theirs: they never push those off.
		room := min(max(m.height/4, 1), m.height-4-len(head)-len(rest)-len(also))
		var rows []string
		for _, d := range p.Details {
			rows = append(rows, m.wrapRows(d, maxPromptRows)...)
		}
		if len(rows) > room {
			rows = rows[:max(room, 0)]
			if room > 0 {
				rows[room-1] = m.truncate(strings.TrimSuffix(rows[room-1], "…") + " …")
			}
		}
		rest = append(rest, rows...)
	}
	return head, append(rest, also...)
}

// alsoWaiting names every other prompt waiting, with its agent and what
// it asks when that fits in two rows, else with its agent only.
func (m *Model) alsoWaiting() []string {
	var long, short []string
	for _, q := range m.prompts[1:] {
		n := strconv.Itoa(q.Number)
		if m.severalAgents() && q.Agent != "" {
			n += " from " + q.Agent
		}
		long = append(long, fmt.Sprintf("%s (%s)", n, protocol.Line(q.Topic)))
		short = append(short, n)
	}
	line := "Also waiting: " + strings.Join(long, ", ")
	if m.width > 0 && strings.Count(ansi.Wordwrap(line, m.width, ""), "\n") >= 2 {
		line = "Also waiting: " + strings.Join(short, ", ")
	}
	return m.wrapRows(line, 2)
}

// Rows at most for a prompt's headline, its keys and the message line.
const (
	maxPromptRows  = 3
	maxMessageRows = 2
)

// wrapRows wraps s between words to the screen's width in at most n rows,
// each after the first marked as going on (goesOn); the last is cut with …
// when more would be needed.
func (m *Model) wrapRows(s string, n int) []string {
	if ansi.StringWidth(s) <= m.width || n <= 0 {
		return []string{m.truncate(s)}
	}
	rows := strings.Split(ansi.Wordwrap(s, m.width-goesOnWidth, ""), "\n")
	if len(rows) > n {
		rows[n-1] = strings.Join(rows[n-1:], " ")
		rows = rows[:n]
	}
	for i := range rows {
		if i > 0 {
			rows[i] = goesOn + rows[i]
		}
		rows[i] = m.truncate(rows[i])
	}
	return rows
}

// goesOn begins every row that goes on from the row above, so that no
// producer's words, wrapped, begin a row as if it were a line of ours.
const goesOn = "… "

var goesOnWidth = ansi.StringWidth(goesOn)

// markGoingOn marks each of rows after the first as going on.
func markGoingOn(rows []string) []string {
	for i := 1; i < len(rows); i++ {
		rows[i] = goesOn + rows[i]
	}
	return rows
}

// listView draws n rows around the selection and returns the selected row.
func (m *Model) listView(n int) (rows []string, sel int) {
	rows = make([]string, n)
	shown := m.shown()
	if shown == 0 {
		rows[0] = "No events yet."
		switch {
		case m.ring.len() > 0 && m.agentOnly != "" && m.filter.Empty():
			rows[0] = "No event of " + m.agentOnly + " yet; press " + keyName(m.keys.AgentFilter) + " for every agent's."
		case m.ring.len() > 0:
			rows[0] = "No event matches the filter; press " + keyName(m.keys.ClearFilter) + " to clear it."
		}
		return rows, -1
	}
	i := m.index(m.selected)
	if i >= shown {
		i = shown - 1
	}
	m.row = min(m.row, n-1, i)
	top := i - m.row
	if top+n > shown {
		top = max(shown-n, 0)
	}
	m.row = i - top
	cols := columnsFor(m.width, m.agentCol)
	for r := 0; r < n && top+r < shown; r++ {
		e := m.ring.get(m.visible[top+r])
		if e == nil {
			continue
		}
		rows[r] = m.rowView(e, top+r == i, cols)
	}
	return rows, m.row
}

func (m *Model) rowView(e *entry, selected bool, c columns) string {
	var b strings.Builder
	b.Grow(m.width + 16)
	switch {
	case selected:
		b.WriteString(">")
	default:
		b.WriteString(" ")
	}
	if e.marked {
		b.WriteString("*")
	} else {
		b.WriteString(" ")
	}
	if c.time {
		b.WriteString(m.timeText(e.At, c.longTime))
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "%-10s ", strings.ToUpper(e.urgency()))
	if c.agentCol > 0 {
		a := ansi.Truncate(e.Agent, c.agentCol, "…")
		b.WriteString(a + strings.Repeat(" ", c.agentCol-ansi.StringWidth(a)+1))
	}
	if c.typeWidth > 0 {
		t := ansi.Truncate(shortType(e.typ()), c.typeWidth, "…")
		b.WriteString(t + strings.Repeat(" ", c.typeWidth-ansi.StringWidth(t)+1))
	}
	if c.session && e.SessionID != "" {
		b.WriteString(shortID(e.SessionID) + " ")
	}
	if c.agentName > 0 && e.Agent != "" {
		b.WriteString(ansi.Truncate(e.Agent, c.agentName, "…") + ": ")
	}
	b.WriteString(e.line)
	s := m.truncate(b.String())
	switch {
	case selected:
		return m.styles.Selected.Render(s)
	case e.Priority == announce.Critical:
		return m.styles.Critical.Render(s)
	case e.Kind == "diagnostic":
		return m.styles.Diagnostic.Render(s)
	case e.Priority == announce.Background:
		return m.styles.Background.Render(s)
	}
	return s
}

// columns are the fixed columns a row of the list shows before its text.
// The urgency, in words, is always shown.
type columns struct {
	time, longTime bool // the time; with milliseconds
	typeWidth      int  // the event type's column; 0: not shown
	session        bool
	agentName      int // the agent's name before the text ("Demo: text"), cut at this width; 0: not shown
	agentCol       int // the agent column's width, after the urgency; 0: not shown
}

// Widths of the list's columns, spaces after them included.
const (
	marksWidth      = 2  // the selection and the mark
	urgencyWidth    = 11 // "BACKGROUND "
	maxAgentWidth   = 16 // an agent's name is cut beyond
	sessionWidth    = 15 // shortID and a space
	wideTypeWidth   = 22 // "awaiting.clarification"
	narrowTypeWidth = 16
)

// fixed is how wide the columns before the text are, the agent's counted
// as a name of maxAgentWidth.
func (c columns) fixed() int {
	n := marksWidth + urgencyWidth
	switch {
	case c.time && c.longTime:
		n += 13
	case c.time:
		n += 9
	}
	if c.typeWidth > 0 {
		n += c.typeWidth + 1
	}
	if c.session {
		n += sessionWidth
	}
	if c.agentName > 0 {
		n += c.agentName + 2
	}
	if c.agentCol > 0 {
		n += c.agentCol + 1
	}
	return n
}

// columnsFor fits the columns to a screen width columns wide: the text gets
// what they leave, at least half the screen (40 columns at most). Until it
// does, the columns give way in this order: the session, the time's
// milliseconds, the type's width, the agent, the type, the time. The
// details pane and the sessions view show them all.
//
// Once several agents are seen (agentCol, the widest name, is more than 0)
// who said it matters more than what type it is: the agent gets a column of
// its own after the urgency, which gives way after the type: it narrows,
// then the time goes, then the agent's name moves before the text, so every
// row still says it.
func columnsFor(width, agentCol int) columns {
	if agentCol > 0 {
		return narrowed(width, columns{time: true, longTime: true, typeWidth: wideTypeWidth, session: true, agentCol: agentCol},
			func(c *columns) { c.session = false },
			func(c *columns) { c.longTime = false },
			func(c *columns) { c.typeWidth = narrowTypeWidth },
			func(c *columns) { c.typeWidth = 0 },
			func(c *columns) { c.agentCol = min(c.agentCol, narrowAgentWidth) },
			func(c *columns) { c.time = false },
			func(c *columns) { c.agentCol, c.agentName = 0, narrowAgentWidth },
		)
	}
	return narrowed(width, columns{time: true, longTime: true, typeWidth: wideTypeWidth, session: true, agentName: maxAgentWidth},
		func(c *columns) { c.session = false },
		func(c *columns) { c.longTime = false },
		func(c *columns) { c.typeWidth = narrowTypeWidth },
		func(c *columns) { c.agentName = 0 },
		func(c *columns) { c.typeWidth = 0 },
		func(c *columns) { c.time = false },
	)
}

// narrowed applies narrower steps to c, in order, until the text gets at
// least half of width (40 columns at most).
func narrowed(width int, c columns, narrower ...func(*columns)) columns {
	text := min(40, width/2)
	for _, narrow := range narrower {
		if width-c.fixed() >= text {
			break
		}
		narrow(&c)
	}
	return c
}

func (m *Model) timeText(t time.Time, long bool) string {
	if m.relative && !m.start.IsZero() {
		d := t.Sub(m.start)
		if long {
			return fmt.Sprintf("+%7.3fs", d.Seconds())
		}
		return fmt.Sprintf("+%6.0fs", d.Seconds())
	}
	if long {
		return t.In(m.opts.Location).Format("15:04:05.000")
	}
	return t.In(m.opts.Location).Format("15:04:05")
}

// detailView is the selected event in full: times, diagnostics, the event
// pretty-printed and the frame as received, all sanitized.
func (m *Model) detailView() []string {
	e := m.ring.get(m.selected)
	if e == nil {
		return []string{"Details: nothing selected."}
	}
	head := fmt.Sprintf("Details of line %d: %s, %s, received %s", e.seq, strings.ToLower(e.urgency()), e.Kind, e.At.In(m.opts.Location).Format("15:04:05.000"))
	if m.wrap {
		head += " (long lines wrapped)"
	}
	lines := []string{head}
	ev := e.Event
	if ev != nil {
		l := "Event " + protocol.Sanitize(ev.EventID) + " type " + protocol.Sanitize(ev.Type)
		if ev.HasSeq {
			l += fmt.Sprintf(" sequence %d", ev.Seq)
		}
		lines = append(lines, l)
		if !ev.Timestamp.IsZero() {
			lines = append(lines, fmt.Sprintf("Event timestamp %s, received %s later", ev.Timestamp.In(m.opts.Location).Format("15:04:05.000"), e.At.Sub(ev.Timestamp).Round(time.Millisecond)))
		}
		for _, d := range m.diags.forEvent(ev.EventID) {
			lines = append(lines, "Diagnostic: "+d)
		}
		if len(ev.Raw) > 0 {
			var pretty bytes.Buffer
			if json.Indent(&pretty, ev.Raw, "", "  ") == nil {
				for _, l := range strings.Split(pretty.String(), "\n") {
					lines = append(lines, m.wrapLine(protocol.Sanitize(l))...)
				}
			}
			lines = append(lines, m.wrapLine("Raw frame: "+protocol.Sanitize(string(ev.Raw)))...)
		}
	} else {
		if e.EventID != "" {
			lines = append(lines, "About event "+protocol.Sanitize(e.EventID))
		}
		lines = append(lines, m.wrapLine(e.line)...)
	}
	return lines
}

func (m *Model) wrapLine(s string) []string {
	if !m.wrap || ansi.StringWidth(s) <= m.width {
		return []string{s}
	}
	return markGoingOn(strings.Split(ansi.Hardwrap(s, max(1, m.width-goesOnWidth), true), "\n"))
}

func (m *Model) footer() string {
	var parts []string
	for _, b := range m.keys.ShortHelp() {
		k := b.Help().Key
		if k == " " {
			k = "space"
		}
		parts = append(parts, k+" "+b.Help().Desc)
	}
	if m.severalAgents() {
		// Second, after the help: the agents matter once there are several,
		// and a narrow screen cuts the footer's end.
		parts = slices.Insert(parts, 1, keyName(m.keys.Agents)+" agents")
	}
	return strings.Join(parts, " | ")
}

// helpEntries are the help's lines, one a key.
func (m *Model) helpEntries() []string {
	var out []string
	for _, col := range m.keys.FullHelp() {
		for _, k := range col {
			names := make([]string, 0, 2)
			for _, n := range k.Keys() {
				if n == " " {
					n = "space"
				}
				names = append(names, n)
			}
			out = append(out, fmt.Sprintf("  %-16s %s", strings.Join(names, " or "), k.Help().Desc))
		}
	}
	for _, b := range m.opts.Bindings {
		out = append(out, fmt.Sprintf("  %-16s %s", strings.Join(b.Keys, " or "), b.help()))
	}
	return out
}

// helpPerPage is how many keys a page of the help shows in n rows: one row
// is the heading.
func helpPerPage(n int) int { return max(n-1, 1) }

// helpPages is how many pages the help takes on this screen.
func (m *Model) helpPages() int {
	per := helpPerPage(m.listHeight())
	return (len(m.helpEntries()) + per - 1) / per
}

// helpLines is the help page shown, in n rows: a heading that says how to
// go on, then as many keys as fit.
func (m *Model) helpLines(n int) []string {
	entries := m.helpEntries()
	per := helpPerPage(n)
	pages := (len(entries) + per - 1) / per
	page := min(m.helpPage, pages-1)
	head := "Keys (any key closes this help):"
	if pages > 1 {
		more := keyName(m.keys.Help) + " shows the next page, any other key closes"
		if page == pages-1 {
			more = "any key closes"
		}
		head = fmt.Sprintf("Keys, page %d of %d (%s):", page+1, pages, more)
	}
	return append([]string{head}, entries[page*per:min((page+1)*per, len(entries))]...)
}

// shortID keeps the start of a long id; details show it whole.
func shortID(id string) string {
	if len(id) <= 14 {
		return id
	}
	return id[:13] + "…"
}

// keyName is the key a binding is told by: the first of its keys, as the
// help shows it ("space" for the space bar). Hints name it, so they follow
// a remap.
func keyName(b key.Binding) string {
	k := b.Help().Key
	if k == " " {
		return "space"
	}
	return k
}
