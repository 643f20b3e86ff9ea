package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/aaep-term/aaep-term/announce"
)

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Keys typed faster than they are read come as one message: take
		// them one at a time, as "/" changes what the next key means.
		cmds := make([]tea.Cmd, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	switch m.mode {
	case modeFilter, modeCommand, modeTask:
		m.lineKey(msg)
		return nil
	case modeAnswer:
		m.clarifyKey(msg)
		return nil
	case modeForm:
		m.formKey(msg)
		return nil
	case modeHelp:
		if key.Matches(msg, m.keys.Help) && m.helpPage+1 < m.helpPages() {
			m.helpPage++
			return nil
		}
		m.mode = modeList
		if key.Matches(msg, m.keys.Quit) {
			return m.quit()
		}
		return nil
	}
	if m.quitAsk != "" && m.confirmQuitAgent(key.Matches(msg, m.keys.QuitAgent)) {
		return nil
	}
	if m.acceptAsk != nil {
		m.confirmAccept(msg.String() == "y")
		return nil // the key answered the question, whatever it was
	}
	for _, b := range m.opts.Bindings {
		if key.Matches(msg, key.NewBinding(key.WithKeys(b.Keys...))) {
			m.act(Action{Kind: ActionLine, Text: b.Command})
			return nil
		}
	}
	k := m.keys
	if m.view == viewAgents && m.agentsViewKey(msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.mode, m.helpPage = modeHelp, 0
	case key.Matches(msg, k.Up):
		m.pause()
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.pause()
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.pause()
		m.move(-m.listHeight())
	case key.Matches(msg, k.PageDown):
		m.pause()
		m.move(m.listHeight())
	case key.Matches(msg, k.Top):
		m.pause()
		if m.shown() > 0 {
			m.selectIndex(0, -m.shown())
		}
	case key.Matches(msg, k.Bottom):
		m.follow()
	case key.Matches(msg, k.Pause):
		if m.following {
			m.pause()
			m.message = "Paused: the list holds still while events keep arriving."
		} else {
			m.follow()
			m.message = "Following the newest event."
		}
	case key.Matches(msg, k.Filter):
		m.mode = modeFilter
		m.input.set(m.filter.String())
		m.histPos = len(m.history)
	case key.Matches(msg, k.ClearFilter):
		m.agentOnly = ""
		m.applyFilter(Filter{})
		m.message = "Filter cleared: showing every event."
	case key.Matches(msg, k.NextMatch):
		m.find(1, func(e *entry) bool { return m.lastFind.match(e) }, "match")
	case key.Matches(msg, k.PrevMatch):
		m.find(-1, func(e *entry) bool { return m.lastFind.match(e) }, "match")
	case key.Matches(msg, k.NextCritical):
		m.find(1, isCritical, "critical event")
	case key.Matches(msg, k.PrevCritical):
		m.find(-1, isCritical, "critical event")
	case key.Matches(msg, k.Mark):
		if e := m.ring.get(m.selected); e != nil {
			e.marked = !e.marked
		}
	case key.Matches(msg, k.NextMark):
		m.find(1, func(e *entry) bool { return e.marked }, "mark")
	case key.Matches(msg, k.Details):
		m.showDetail = !m.showDetail
	case key.Matches(msg, k.Timestamps):
		m.relative = !m.relative
	case key.Matches(msg, k.Wrap):
		m.wrap = !m.wrap
	case key.Matches(msg, k.Views):
		views := viewAgents // the agents view joins the round once agents are known
		if len(m.agents) > 0 {
			views++
		}
		m.view = (m.view + 1) % views
		m.message = "Showing " + m.view.String() + "."
		if m.view == viewAgents {
			m.message = m.agentWords()
		}
	case key.Matches(msg, k.Copy):
		m.message = m.copySelected()
	case key.Matches(msg, k.Save):
		m.message = m.saveVisible()
	case key.Matches(msg, k.Accept):
		return m.answer(true)
	case key.Matches(msg, k.Reject):
		return m.answer(false)
	case key.Matches(msg, k.Command):
		m.mode = modeCommand
		m.input.set("")
	case key.Matches(msg, k.Task):
		m.openTask()
	case key.Matches(msg, k.Silence):
		m.act(Action{Kind: ActionStop})
	case key.Matches(msg, k.Renegotiate):
		m.form = newTermsForm(m.terms)
		m.mode = modeForm
	case key.Matches(msg, k.PromptDetails):
		if len(m.prompts) > 0 {
			m.promptDetail = !m.promptDetail
			m.promptFocus = true
		}
	// The agents' keys come last: a key file from before them that binds
	// one of their keys to another action keeps its meaning.
	case key.Matches(msg, k.Agents):
		if m.view == viewAgents {
			m.view = viewEvents
			m.message = "Showing events."
			break
		}
		m.view = viewAgents
		m.message = m.agentWords()
	case key.Matches(msg, k.AgentFilter):
		m.agentFilterKey()
	case key.Matches(msg, k.Mute):
		m.agentKey(ActionMute)
	case key.Matches(msg, k.Only):
		m.agentKey(ActionOnly)
	case key.Matches(msg, k.QuitAgent):
		m.agentKey(ActionQuitAgent)
	case key.Matches(msg, k.AllAgents):
		m.act(Action{Kind: ActionAll})
	}
	return nil
}

// agentsViewKey moves the agents view's selection; it reports whether msg
// was one of the keys that move.
func (m *Model) agentsViewKey(msg tea.KeyMsg) bool {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.moveAgent(-1)
	case key.Matches(msg, k.Down):
		m.moveAgent(1)
	case key.Matches(msg, k.PageUp):
		m.moveAgent(-m.listHeight())
	case key.Matches(msg, k.PageDown):
		m.moveAgent(m.listHeight())
	case key.Matches(msg, k.Top):
		m.moveAgent(-len(m.agents))
	case key.Matches(msg, k.Bottom):
		m.moveAgent(len(m.agents))
	default:
		return false
	}
	return true
}

func isCritical(e *entry) bool { return e.Priority == announce.Critical }

// find selects the next (dir 1) or previous (dir -1) shown entry that ok accepts.
func (m *Model) find(dir int, ok func(*entry) bool, what string) {
	n := m.shown()
	if n == 0 {
		return
	}
	if what == "match" && m.lastFind.Empty() {
		m.message = "No filter typed yet: press " + keyName(m.keys.Filter) + " first."
		return
	}
	i := m.index(m.selected)
	for j := i + dir; j >= 0 && j < n; j += dir {
		if e := m.ring.get(m.visible[j]); e != nil && ok(e) {
			m.pause()
			m.selectIndex(j, j-i)
			m.message = ""
			return
		}
	}
	if dir > 0 {
		m.message = "No further " + what + "."
	} else {
		m.message = "No earlier " + what + "."
	}
}

// lineKey edits the line being typed (a filter or a command):
// esc drops it, enter hands it over.
func (m *Model) lineKey(msg tea.KeyMsg) {
	switch msg.Type {
	case tea.KeyEsc:
		if m.mode == modeTask {
			m.message = "No task sent."
		}
		m.mode = modeList
	case tea.KeyEnter:
		text := strings.TrimSpace(m.input.String())
		was := m.mode
		m.mode = modeList
		switch {
		case was == modeFilter:
			m.setFilter(text)
		case was == modeTask:
			m.sendTask(text)
		case text == "":
			m.message = "Nothing sent: the line was empty."
		default:
			m.act(Action{Kind: ActionLine, Text: text})
		}
	case tea.KeyUp, tea.KeyDown:
		if m.mode == modeFilter {
			m.recall(msg.Type == tea.KeyUp)
		}
	default:
		m.input.update(msg)
	}
}

// setFilter applies the filter typed, or says why it cannot.
func (m *Model) setFilter(expr string) {
	f, err := ParseFilter(expr)
	if err != nil {
		m.mode = modeFilter // let the user mend it
		m.message = "Filter not applied: " + err.Error() + "."
		return
	}
	if expr != "" && (len(m.history) == 0 || m.history[len(m.history)-1] != expr) {
		m.history = append(m.history, expr)
	}
	m.applyFilter(f)
	if f.Empty() {
		m.message = "Filter cleared: showing every event."
		return
	}
	m.message = fmt.Sprintf("Filter %s: %d of %d events shown (critical ones always).", expr, len(m.visible), m.ring.len())
}

// recall puts an earlier (or later) filter from the history in the line.
func (m *Model) recall(earlier bool) {
	if len(m.history) == 0 {
		return
	}
	if earlier {
		m.histPos = max(m.histPos-1, 0)
	} else {
		m.histPos = min(m.histPos+1, len(m.history))
	}
	v := ""
	if m.histPos < len(m.history) {
		v = m.history[m.histPos]
	}
	m.input.set(v)
}

// answer accepts or rejects the first prompt waiting, or opens the widget
// answering a question.
func (m *Model) answer(accept bool) tea.Cmd {
	if len(m.prompts) == 0 {
		m.message = "No prompt is waiting for an answer."
		return nil
	}
	p := m.prompts[0]
	if p.Question {
		if !accept {
			m.message = fmt.Sprintf("Prompt %d is a question: press %s and type an answer.", p.Number, keyName(m.keys.Accept))
			return nil
		}
		m.openClarifier(p)
		return nil
	}
	kind := ActionReject
	if accept {
		kind = ActionAccept
	}
	a := Action{Kind: kind, Prompt: p.Number, Words: p.Digest, Shown: m.headSince}
	if accept && p.SecondStep != "" {
		m.acceptAsk = &a // one key never sends what cannot be undone
		m.message = p.SecondStep
		return nil
	}
	m.act(a)
	return nil
}

// confirmAccept takes the key after an accept that cannot be undone: y
// sends it, any other key sends nothing and says so.
func (m *Model) confirmAccept(yes bool) {
	a := *m.acceptAsk
	m.acceptAsk = nil
	if !yes {
		m.message = fmt.Sprintf("Not sent: prompt %d still waits for your answer.", a.Prompt)
		return
	}
	a.Sure = true
	m.act(a)
}

// act hands a to the listener and says so, or says why it was not sent.
func (m *Model) act(a Action) {
	s := a.String()
	if m.ended {
		m.message = "The stream has ended: " + s + " was not sent."
		return
	}
	if m.opts.Act == nil {
		m.message = "Not connected: " + s + " was not sent."
		return
	}
	if !m.opts.Act(a) {
		m.message = "The listener is busy: " + s + " was not sent; try again."
		return
	}
	m.message = "Sending: " + s + "."
}

// quit asks the listener to close the subscription cleanly; the listener
// then ends the TUI. A second press, or a listener that cannot be asked, ends
// it at once (the listener is then told to quit when the TUI is gone).
func (m *Model) quit() tea.Cmd {
	if m.ended || m.closing || m.opts.Act == nil || !m.opts.Act(Action{Kind: ActionQuit}) {
		return m.end()
	}
	m.closing = true
	m.message = "Closing the subscription…"
	return nil
}
