package tui

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/aaep-term/aaep-term/announce"
)

// DefaultCapacity is how many events the list keeps by default.
const DefaultCapacity = 100_000

// maxHistoryLines bounds the lines printed above the view per batch during a
// flood; critical lines are always printed.
const maxHistoryLines = 200

// Options configure a Model.
type Options struct {
	Capacity int   // events kept; DefaultCapacity when 0
	Theme    Theme // ThemeNone for NO_COLOR
	Renderer *lipgloss.Renderer
	Keys     *KeyMap // DefaultKeyMap when nil

	// Act hands what the user asked for to the listener, typed, and
	// reports whether it was taken. When nil, quitting ends the program at
	// once.
	Act func(Action) bool
	// Bindings are extra keys that send a command line (an ActionLine)
	// through Act, checked before the keys of the list (aaep-replay play
	// uses them for pause, step and jumps).
	Bindings []Binding

	Endpoint  string
	Transport string // how the listener is connected, in words: "SSE", "WebSocket"…
	// History prints every announcement above the view, as a plain line that
	// stays in the terminal's scrollback (inline mode).
	History bool
	SaveDir string // where S and y write files; the working directory when ""
	// Clipboard, when set, puts text on the terminal's clipboard (OSC 52);
	// y then copies there instead of saving a file.
	Clipboard func(string)
	// ClipboardVia says who takes OSC 52 ("tmux", "kitty"), or why y
	// saves a file instead.
	ClipboardVia string
	Now          func() time.Time
	Location     *time.Location
}

// Binding sends Command, a command line, as an ActionLine when one of Keys is pressed
// in the list (key names as in KeyMap: ".", "ctrl+p", "]").
type Binding struct {
	Keys    []string
	Command string
	Help    string // what the key does, for the ? help; the command is named when ""
}

func (b Binding) help() string {
	if b.Help != "" {
		return b.Help
	}
	return "the command " + b.Command
}

type mode int

const (
	modeList mode = iota
	modeFilter
	modeAnswer
	modeCommand
	modeHelp
	modeForm // the renegotiate dialog
	modeTask // the task input: a line for an agent (tell)
)

type view int

const (
	viewEvents view = iota
	viewSessions
	viewDiagnostics
	viewAgents
)

func (v view) String() string {
	return [...]string{"events", "sessions", "diagnostics", "agents"}[v]
}

// Model is the Bubble Tea model of the debug view.
type Model struct {
	opts   Options
	keys   KeyMap
	styles Styles
	input  lineInput
	in     *inbox
	cur    *cursorPos

	width, height int

	ring     *ring
	visible  []uint64 // numbers of the entries the filter lets through, oldest first
	filter   Filter
	lastFind Filter // the last non-empty filter, for n and N
	history  []string
	histPos  int

	mode       mode
	view       view
	selected   uint64 // 0: none yet
	row        int    // the selected entry's row within the list window
	following  bool
	pausedAt   uint64
	showDetail bool
	wrap       bool
	relative   bool
	start      time.Time

	prompts      []Prompt
	headSince    time.Time // when prompts[0] first headed the screen
	ticking      bool      // a tickMsg is on its way
	promptFocus  bool
	promptDetail bool
	clar         *clarifier // the question being answered in modeAnswer
	helpPage     int        // the page of the help shown, from 0

	sessions *sessionTable
	diags    diagTable

	agents     []agentRow // from SetAgents, in the listener's order
	agentSel   int        // the agents view's selected row
	agentOnly  string     // the agent filter: only this agent's events listed (as shown); "": all
	firstAgent string     // the first agent seen, as shown
	lastAgent  string     // the last agent measured for the column
	agentCol   int        // the agent column's width once several agents are seen; 0 before
	quitAsk    string     // the agent whose quit waits for the key again (its raw label)
	taskFor    *agentRow  // the agent the task input is for; nil: the one agent of the run
	acceptAsk  *Action    // an accept that cannot be undone, waiting for y (keys.go)

	message string
	rateIn  rateMeter // events received a second
	rateOut rateMeter // events added to the list shown a second
	terms   *Terms    // nil until the listener tells them
	form    *termsForm
	// queuedTerms are changes from the dialog waiting for the producer's
	// answer to the one before.
	queuedTerms []Action
	replies     int  // answers sent to the producer
	closing     bool // the listener was asked to close the subscription
	ended       bool // the stream has ended; the view waits for the user to quit
	quitting    bool // the program ends: draw nothing more

	// toPrint are lines waiting to be printed above the view (inline
	// mode), oldest first; printing says a batch is on its way to the
	// renderer. One batch at a time keeps them in order.
	toPrint  []string
	printing bool
}

// New returns a Model following the newest event.
func New(opts Options) *Model {
	if opts.Capacity <= 0 {
		opts.Capacity = DefaultCapacity
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Renderer == nil {
		opts.Renderer = lipgloss.NewRenderer(os.Stdout)
	}
	keys := DefaultKeyMap()
	if opts.Keys != nil {
		keys = *opts.Keys
	}
	m := &Model{
		opts:      opts,
		keys:      keys,
		styles:    DefaultStyles(opts.Renderer, opts.Theme),
		in:        &inbox{},
		ring:      newRing(opts.Capacity),
		following: true,
		width:     80,
		height:    24,
		sessions:  newSessionTable(),
	}
	return m
}

// inbox is where the listener's goroutine leaves items for the model.
type inbox struct {
	mu         sync.Mutex
	items      []Item
	prompts    []Prompt
	promptsSet bool
	terms      *Terms
	termsSet   bool
	agents     []Agent
	agentsSet  bool
	woke       bool // a wake-up message is on its way
}

// inboxMsg tells the model the inbox has something.
type inboxMsg struct{}

// closeMsg ends the program once the inbox is emptied.
type closeMsg struct{}

// endMsg says the stream has ended: the view stays until the user quits.
type endMsg struct{}

// printedMsg says the lines printed last are in the renderer's queue, ahead
// of anything printed after them.
type printedMsg struct{}

// tickMsg redraws prompt countdowns.
type tickMsg struct{}

// ItemsMsg adds items directly (tests and replays).
type ItemsMsg []Item

// PromptsMsg replaces the prompts waiting for the user.
type PromptsMsg []Prompt

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return tea.ShowCursor }

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case inboxMsg:
		return m, m.takeInbox()
	case closeMsg:
		cmd := m.takeInbox()
		return m, tea.Batch(cmd, m.end())
	case endMsg:
		cmd := m.takeInbox()
		if m.closing {
			// The user asked to quit, and the listener has closed: done.
			return m, tea.Batch(cmd, m.end())
		}
		m.ended = true
		m.promptFocus = false
		return m, cmd
	case printedMsg:
		m.printing = false
		if cmd := m.printNext(); cmd != nil || !m.quitting {
			return m, cmd
		}
		return m, tea.Quit
	case ItemsMsg:
		return m, m.ingest(msg)
	case PromptsMsg:
		return m, m.setPrompts(msg)
	case AgentsMsg:
		m.setAgents(msg)
		return m, nil
	case TermsMsg:
		t := Terms(msg)
		m.terms = &t
		m.nextTerms()
		return m, nil
	case tickMsg:
		m.ticking = len(m.prompts) > 0
		if m.ticking {
			return m, tick()
		}
		return m, nil
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) takeInbox() tea.Cmd {
	in := m.in
	in.mu.Lock()
	items, prompts, set := in.items, in.prompts, in.promptsSet
	terms, termsSet := in.terms, in.termsSet
	agents, agentsSet := in.agents, in.agentsSet
	in.items, in.prompts, in.promptsSet, in.woke = nil, nil, false, false
	in.terms, in.termsSet = nil, false
	in.agents, in.agentsSet = nil, false
	in.mu.Unlock()
	if agentsSet {
		m.setAgents(agents)
	}
	if termsSet {
		m.terms = terms
		m.nextTerms()
	}
	var cmds []tea.Cmd
	if len(items) > 0 {
		cmds = append(cmds, m.ingest(items))
	}
	if set {
		cmds = append(cmds, m.setPrompts(prompts))
	}
	return tea.Batch(cmds...)
}

func (m *Model) setPrompts(ps []Prompt) tea.Cmd {
	had := make(map[int]bool, len(m.prompts))
	for _, p := range m.prompts {
		had[p.Number] = true
	}
	clean := make([]Prompt, len(ps)) // the caller's stay as they were
	for i := range ps {
		clean[i] = ps[i].sanitized()
	}
	ps = clean
	if len(ps) > 0 && (len(m.prompts) == 0 || m.prompts[0].Number != ps[0].Number || m.prompts[0].Digest != ps[0].Digest) {
		m.headSince = m.opts.Now() // another prompt heads the screen
	}
	m.prompts = ps
	for _, p := range ps {
		if !had[p.Number] {
			m.promptFocus = true // a new prompt takes the cursor
		}
	}
	if len(ps) == 0 {
		m.promptFocus, m.promptDetail = false, false
	}
	if m.mode == modeAnswer && !slices.ContainsFunc(ps, func(p Prompt) bool { return p.Number == m.clar.prompt.Number }) {
		// Answered, withdrawn or expired meanwhile: the listener says which.
		m.message = fmt.Sprintf("Prompt %d no longer waits for an answer.", m.clar.prompt.Number)
		m.mode, m.clar = modeList, nil
	}
	if len(ps) > 0 && !m.ticking {
		m.ticking = true // the countdown is redrawn once a second
		return tick()
	}
	return nil
}

// ingest adds items to the list and, in inline mode, prints them above it.
func (m *Model) ingest(items []Item) tea.Cmd {
	var lines []string
	skipped := 0
	for _, it := range items {
		if m.start.IsZero() {
			m.start = it.At
		}
		seq := m.ring.push(it)
		e := m.ring.get(seq)
		m.seeAgent(e.Agent)
		switch {
		case e.Kind == "status":
			m.message = e.line
		case e.Kind == "reply-sent":
			m.replies++
		}
		if e.Priority == announce.Critical && !m.following {
			// A paused list must not hide what is critical.
			from := ""
			if m.severalAgents() && e.Agent != "" {
				from = " from " + e.Agent
			}
			m.message = "CRITICAL" + from + ", arrived while paused: " + e.line + " (" + keyName(m.keys.Bottom) + " shows it)"
		}
		if !m.filtered() || m.keep(e) {
			m.visible = append(m.visible, seq)
			if m.following {
				m.rateOut.add(it.At)
			}
		}
		m.sessions.add(e)
		if it.Kind == "diagnostic" {
			m.diags.add(e)
		}
		m.rateIn.add(it.At)
		m.rateOut.roll(it.At)
		if m.opts.History {
			if len(lines) < maxHistoryLines || it.Priority == announce.Critical {
				lines = append(lines, m.historyLine(e))
			} else {
				skipped++
			}
		}
	}
	first := m.ring.first()
	i := 0
	for i < len(m.visible) && m.visible[i] < first {
		i++
	}
	m.visible = m.visible[i:]
	if !m.following && m.pausedAt < first {
		m.following = true
		m.message = "The paused events were dropped from the full buffer; following again."
	}
	if m.following || m.selected < first {
		m.selectLast()
	}
	if skipped > 0 {
		lines = append(lines, fmt.Sprintf("(%d more events in the list; too many to print)", skipped))
	}
	m.toPrint = append(m.toPrint, lines...)
	return m.printNext()
}

// printNext prints the lines waiting above the view, unless a batch is
// still on its way: Bubble Tea runs every command in a goroutine of its
// own, so two batches in flight could land in either order. The next batch
// goes when printedMsg says the last one is queued.
//
// The renderer writes printed lines over the rows of the last frame and
// clears the rest of a row only when the line fits in it: a line wider
// than the screen would wrap onto a row still holding part of the frame
// (a status row, say) and keep it in the scrollback. So the rows from the
// frame's top (where the cursor is then) to the screen's bottom are erased
// first, and every printed line lands on blank rows. They are erased row by
// row, cursor saved and restored: erasing the screen below the top-left
// corner makes tmux push the whole screen into the scrollback.
func (m *Model) printNext() tea.Cmd {
	if m.printing || len(m.toPrint) == 0 {
		return nil
	}
	m.printing = true
	erase := ansi.SaveCursor + strings.Repeat(ansi.EraseEntireLine+ansi.CUD1, max(m.height, 1)) + ansi.RestoreCursor
	batch := erase + strings.Join(m.toPrint, "\n")
	m.toPrint = nil
	return tea.Sequence(tea.Println(batch), func() tea.Msg { return printedMsg{} })
}

// end ends the program once every line waiting is printed.
func (m *Model) end() tea.Cmd {
	m.quitting = true
	m.cur.set(0, 0, false)
	if m.printing || len(m.toPrint) > 0 {
		return nil // printedMsg quits
	}
	return tea.Quit
}

// keep reports whether e passes the filter and the agent filter; critical
// entries always do.
func (m *Model) keep(e *entry) bool {
	return e.Priority == announce.Critical || m.agentLets(e) && m.filter.match(e)
}

func (m *Model) historyLine(e *entry) string {
	var b strings.Builder
	b.WriteString(e.At.In(m.opts.Location).Format("15:04:05 "))
	if e.Priority == announce.Critical {
		b.WriteString("CRITICAL ")
	}
	if e.Kind == "diagnostic" {
		b.WriteString("Diagnostic: ")
	}
	if e.Agent != "" {
		b.WriteString(e.Agent + ": ")
	}
	b.WriteString(e.line)
	return b.String()
}

// applyFilter recomputes the visible entries.
func (m *Model) applyFilter(f Filter) {
	m.filter = f
	if !f.Empty() {
		m.lastFind = f
	}
	m.visible = m.visible[:0]
	for seq := m.ring.first(); seq <= m.ring.last(); seq++ {
		if e := m.ring.get(seq); !m.filtered() || m.keep(e) {
			m.visible = append(m.visible, seq)
		}
	}
	if m.following {
		m.selectLast()
		return
	}
	// Keep the selection on the nearest entry still shown.
	i := m.index(m.selected)
	if i >= m.shown() {
		i = m.shown() - 1
	}
	if i >= 0 {
		m.selected = m.visible[i]
	} else {
		m.selected = 0
	}
}

// shown is how many visible entries the list may show: all when following,
// those that arrived before the pause otherwise.
func (m *Model) shown() int {
	if m.following {
		return len(m.visible)
	}
	return sort.Search(len(m.visible), func(i int) bool { return m.visible[i] > m.pausedAt })
}

// index is the position of the first visible entry numbered seq or later.
func (m *Model) index(seq uint64) int {
	return sort.Search(len(m.visible), func(i int) bool { return m.visible[i] >= seq })
}

func (m *Model) selectLast() {
	if n := m.shown(); n > 0 {
		m.selected = m.visible[n-1]
		m.row = m.listHeight() - 1
	}
}

// move changes the selection by delta rows.
func (m *Model) move(delta int) {
	n := m.shown()
	if n == 0 {
		return
	}
	i := min(max(m.index(m.selected)+delta, 0), n-1)
	m.selectIndex(i, delta)
}

func (m *Model) selectIndex(i, delta int) {
	m.selected = m.visible[i]
	m.row += delta
	m.row = min(max(m.row, 0), m.listHeight()-1)
	m.promptFocus = false
}

// pause holds the view where it is; events keep arriving and counting.
func (m *Model) pause() {
	if !m.following {
		return
	}
	m.following = false
	m.pausedAt = m.ring.last()
}

func (m *Model) follow() {
	m.following = true
	m.selectLast()
}

// listHeight is how many rows the list gets.
func (m *Model) listHeight() int {
	h := m.height - 1 - len(m.connectionRows()) // status rows
	h -= len(m.wrapRows(m.message, maxMessageRows))
	h -= 1 // footer
	h -= m.promptLines()
	if m.showDetail {
		h -= m.detailHeight()
	}
	return max(h, 1)
}

func (m *Model) promptLines() int {
	if len(m.prompts) == 0 {
		return 0
	}
	head, rest := m.promptRows()
	return len(head) + len(rest)
}

// detailHeight is the details pane's rows: a third of the screen, at
// least 4, never more than the screen has left once the status line, the
// prompt, the message, the footer and a row of the list have theirs.
func (m *Model) detailHeight() int {
	left := m.height - 3 - m.promptLines() - len(m.wrapRows(m.message, maxMessageRows))
	return max(min(max(m.height/3, 4), left), 0)
}

// truncate cuts s to the width of the screen.
func (m *Model) truncate(s string) string {
	return ansi.Truncate(s, m.width, "…")
}
