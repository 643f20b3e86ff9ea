package tui

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every key the TUI answers to, with the help text `?` shows.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding

	Pause        key.Binding // follow or pause
	Filter       key.Binding
	ClearFilter  key.Binding
	NextMatch    key.Binding
	PrevMatch    key.Binding
	NextCritical key.Binding
	PrevCritical key.Binding
	Mark         key.Binding
	NextMark     key.Binding

	Details     key.Binding
	Timestamps  key.Binding
	Wrap        key.Binding
	Views       key.Binding
	Copy        key.Binding
	Save        key.Binding
	Renegotiate key.Binding // the dialog changing rate, verbosity, languages and filters
	Silence     key.Binding // the line-mode stop: queued speech dropped, prompts kept

	Accept        key.Binding
	Reject        key.Binding
	PromptDetails key.Binding
	Command       key.Binding // a line-mode command: accept 2, pending, details 3
	Task          key.Binding // a task for an agent started as acp:COMMAND (tell)

	// The agents: their view, the list's agent filter, and what the
	// listener is asked to do with the agent selected (in the agents view,
	// else the selected event's).
	Agents      key.Binding
	AgentFilter key.Binding // only the selected agent's events listed, or every agent's again
	Mute        key.Binding // mute or unmute the agent
	Only        key.Binding // hear only the agent
	AllAgents   key.Binding // hear every agent again
	QuitAgent   key.Binding // close the agent's subscription (asks for the key again)

	Help key.Binding
	Quit key.Binding
}

// DefaultKeyMap returns the keys documented in docs/tui.md.
func DefaultKeyMap() KeyMap {
	b := func(help string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], help))
	}
	return KeyMap{
		Up:       b("previous event", "up", "k"),
		Down:     b("next event", "down", "j"),
		PageUp:   b("page up", "pgup", "ctrl+b"),
		PageDown: b("page down", "pgdown", "ctrl+f"),
		Top:      b("oldest event", "home", "g"),
		Bottom:   b("newest event, follow", "end", "G"),

		Pause:        b("pause or follow", " ", "p"),
		Filter:       b("filter", "/"),
		ClearFilter:  b("clear filter", "x"),
		NextMatch:    b("next match", "n"),
		PrevMatch:    b("previous match", "N"),
		NextCritical: b("next critical or prompt", "c"),
		PrevCritical: b("previous critical or prompt", "C"),
		Mark:         b("mark or unmark", "m"),
		NextMark:     b("next mark", "'"),

		Details:     b("details pane", "enter"),
		Timestamps:  b("absolute or relative times", "t"),
		Wrap:        b("wrap details", "w"),
		Views:       b("events, sessions, diagnostics", "tab"),
		Copy:        b("copy event JSON", "y"),
		Save:        b("save list as JSON Lines", "S"),
		Renegotiate: b("renegotiate rate, verbosity, languages, event types", "R"),
		Silence:     b("stop speaking what is queued (prompts stay)", "s"),

		Accept:        b("accept or answer prompt", "a"),
		Reject:        b("reject prompt", "r"),
		PromptDetails: b("prompt details", "d"),
		Command:       b("type a line-mode command (accept 2, pending)", ":"),
		Task:          b("give an agent a task (tell; in the agents view, the agent selected)", "T"),

		Agents:      b("agents view: each agent's state, prompts and events", "A"),
		AgentFilter: b("list only the selected agent's events, or every agent's", "f"),
		Mute:        b("mute or unmute the selected agent (critical events and prompts still come)", "u"),
		Only:        b("hear only the selected agent", "O"),
		AllAgents:   b("hear every agent again", "H"),
		QuitAgent:   b("quit the selected agent (press twice)", "X"),

		Help: b("all keys", "?"),
		Quit: b("quit", "q", "ctrl+c"),
	}
}

// ShortHelp is the footer.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Pause, k.Filter, k.Accept, k.Reject, k.Quit}
}

// FullHelp is what `?` shows, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Pause},
		{k.Filter, k.ClearFilter, k.NextMatch, k.PrevMatch, k.NextCritical, k.PrevCritical, k.Mark, k.NextMark},
		{k.Details, k.Timestamps, k.Wrap, k.Views, k.Copy, k.Save, k.Renegotiate, k.Silence},
		{k.Accept, k.Reject, k.PromptDetails, k.Command, k.Task},
		{k.Agents, k.AgentFilter, k.Mute, k.Only, k.AllAgents, k.QuitAgent, k.Help, k.Quit},
	}
}

// named maps each remappable action to its binding, by the name a key file uses.
func (k *KeyMap) named() map[string]*key.Binding {
	return map[string]*key.Binding{
		"up": &k.Up, "down": &k.Down, "page-up": &k.PageUp, "page-down": &k.PageDown,
		"top": &k.Top, "bottom": &k.Bottom, "pause": &k.Pause, "filter": &k.Filter,
		"clear-filter": &k.ClearFilter, "next-match": &k.NextMatch, "previous-match": &k.PrevMatch,
		"next-critical": &k.NextCritical, "previous-critical": &k.PrevCritical, "mark": &k.Mark,
		"next-mark": &k.NextMark, "details": &k.Details, "timestamps": &k.Timestamps, "wrap": &k.Wrap,
		"views": &k.Views, "copy": &k.Copy, "save": &k.Save, "renegotiate": &k.Renegotiate, "silence": &k.Silence, "accept": &k.Accept, "reject": &k.Reject,
		"prompt-details": &k.PromptDetails, "command": &k.Command, "task": &k.Task, "help": &k.Help, "quit": &k.Quit,
		"agents": &k.Agents, "agent-filter": &k.AgentFilter, "mute": &k.Mute, "only": &k.Only,
		"all-agents": &k.AllAgents, "quit-agent": &k.QuitAgent,
	}
}

// Remap reads a key file: one "ACTION = KEY [KEY…]" a line ("pause = space
// p"); blank lines and lines starting with # are skipped. Keys are Bubble
// Tea key names; "space" is the space bar. Errors name the line.
func (k *KeyMap) Remap(r io.Reader) error {
	names := k.named()
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		action, keys, ok := strings.Cut(line, "=")
		b := names[strings.TrimSpace(action)]
		fields := strings.Fields(keys)
		switch {
		case !ok || len(fields) == 0:
			return fmt.Errorf("key file line %d: want ACTION = KEY [KEY…], got %q", n, line)
		case b == nil:
			return fmt.Errorf("key file line %d: no action %q", n, strings.TrimSpace(action))
		}
		for i, f := range fields {
			if f == "space" {
				fields[i] = " "
			}
		}
		b.SetKeys(fields...)
		b.SetHelp(fields[0], b.Help().Desc)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the key file: %w", err)
	}
	return nil
}
