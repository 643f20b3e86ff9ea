package tui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

var t0 = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// testItems are n events of one session, one a second; number 10 is critical.
func testItems(n int) []Item {
	items := make([]Item, n)
	for i := range items {
		ev := &protocol.Event{
			Type: protocol.TypeToolInvoked, EventID: fmt.Sprintf("ev-%03d", i+1), SessionID: "s-1",
			Tool: "read_file", Raw: []byte(fmt.Sprintf(`{"type":"aaep:agent.tool.invoked","event_id":"ev-%03d"}`, i+1)),
			Timestamp: t0.Add(time.Duration(i) * time.Second),
		}
		it := Item{At: t0.Add(time.Duration(i) * time.Second), Priority: announce.Normal, Kind: "tool",
			Agent: "Demo", SessionID: "s-1", Text: fmt.Sprintf("event-%03d", i+1), Event: ev}
		if i%7 == 3 {
			ev.Type, ev.Tool = protocol.TypeProgressUpdated, ""
			it.Kind, it.Priority = "progress", announce.Background
		}
		if i == 9 {
			ev.Type, ev.Tool = protocol.TypeSessionErrored, ""
			it.Kind, it.Priority, it.Text = "errored", announce.Critical, "critical-010"
		}
		items[i] = it
	}
	return items
}

// recorder keeps the actions the model hands to the listener.
type recorder struct {
	mu   sync.Mutex
	acts []Action
}

func (r *recorder) add(a Action) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acts = append(r.acts, a)
	return true
}

// actions are the actions handed over, as they were.
func (r *recorder) actions() []Action {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]Action(nil), r.acts...)
	for i := range out { // what the key was on: TestKeyAnswersWhatWasShown
		out[i].Words, out[i].Shown = "", time.Time{}
	}
	return out
}

// all are the actions handed over in the words of line mode, for tables
// that read better so; the kinds are checked by TestKeysAct.
func (r *recorder) all() []string {
	var s []string
	for _, a := range r.actions() {
		s = append(s, a.String())
	}
	return s
}

func testOptions(dir string, rec *recorder) Options {
	return Options{
		Theme:    ThemeNone,
		Renderer: lipgloss.NewRenderer(io.Discard),
		Act:      rec.add,
		SaveDir:  dir,
		Now:      func() time.Time { return t0.Add(time.Minute) },
		Location: time.UTC,
	}
}

// probe lets a test read the screen from inside the program, in order with
// the keys sent before.
type probe struct{ *Model }

type viewRequest chan string

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if r, ok := msg.(viewRequest); ok {
		r <- p.Model.View()
		return p, nil
	}
	_, cmd := p.Model.Update(msg)
	return p, cmd
}

func startModel(t *testing.T, n int) (*teatest.TestModel, *recorder, string) {
	t.Helper()
	dir := t.TempDir()
	rec := &recorder{}
	tm := teatest.NewTestModel(t, probe{New(testOptions(dir, rec))}, teatest.WithInitialTermSize(110, 20))
	tm.Send(ItemsMsg(testItems(n)))
	waitScreen(t, tm, "event-050")
	return tm, rec, dir
}

// screen is the frame drawn after every message sent so far.
func screen(tm *teatest.TestModel) string {
	r := make(viewRequest, 1)
	tm.Send(r)
	return <-r
}

// waitScreen waits until the frame contains want.
func waitScreen(t *testing.T, tm *teatest.TestModel, want string) {
	t.Helper()
	waitFrame(t, tm, want, func(s string) bool { return strings.Contains(s, want) })
}

// waitSelected waits until the selected row contains text.
func waitSelected(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^>[ *].*` + regexp.QuoteMeta(text))
	waitFrame(t, tm, "selected "+text, re.MatchString)
}

func waitFrame(t *testing.T, tm *teatest.TestModel, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		s := screen(tm)
		if ok(s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen never showed %s; it shows:\n%s", what, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func press(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "ctrl+u":
		return tea.KeyMsg{Type: tea.KeyCtrlU}
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

func typeText(tm *teatest.TestModel, s string) {
	for _, r := range s {
		press(tm, string(r))
	}
}

func confirmPrompt() PromptsMsg {
	return PromptsMsg{{Number: 1, Agent: "Demo", Topic: "Pay 86.40 euros", Risk: "high", Default: "reject",
		Deadline: t0.Add(2 * time.Minute), Details: []string{"Consequence: the money leaves at once"}}}
}

// keyTests covers every key of the help: each presses keys on a list of 50
// events (newest selected) and waits for what must follow.
var keyTests = []struct {
	key string // the help's name for it
	run func(t *testing.T, tm *teatest.TestModel, rec *recorder, dir string)
}{
	{"up", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "up")
		waitSelected(t, tm, "event-049")
		waitScreen(t, tm, "PAUSED")
	}},
	{"down", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "k", "k", "down")
		waitSelected(t, tm, "event-049")
	}},
	{"pgup", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "pgup") // the list is 16 rows
		waitSelected(t, tm, "event-034")
	}},
	{"pgdown", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "home", "pgdown")
		waitSelected(t, tm, "event-017")
	}},
	{"home", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "home")
		waitSelected(t, tm, "event-001")
	}},
	{"end", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "home")
		waitSelected(t, tm, "event-001")
		press(tm, "end")
		waitSelected(t, tm, "event-050")
		waitScreen(t, tm, "FOLLOWING")
	}},
	{" ", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, " ")
		waitScreen(t, tm, "PAUSED, 0 new")
		tm.Send(ItemsMsg(testItems(3)))
		waitScreen(t, tm, "PAUSED, 3 new") // events keep counting, the view holds
		waitSelected(t, tm, "event-050")
		tm.Send(ItemsMsg(testItems(10)[9:])) // critical news is told even when paused
		waitScreen(t, tm, "CRITICAL, arrived while paused: critical-010 (end shows it)")
		press(tm, " ")
		waitSelected(t, tm, "critical-010")
		waitScreen(t, tm, "FOLLOWING")
	}},
	{"/", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "/")
		waitScreen(t, tm, "Filter: ")
		typeText(tm, "type:progress.*")
		press(tm, "enter")
		// 7 progress events plus the critical one, never hidden.
		waitScreen(t, tm, "8 of 50 events shown")
		press(tm, "/", "up") // history
		waitScreen(t, tm, "Filter: type:progress.*")
		press(tm, "esc", "/", "ctrl+u")
		typeText(tm, "urgency:loud")
		press(tm, "enter") // refused: the line stays open to be mended
		waitScreen(t, tm, "Filter not applied: urgency \"loud\" is not one of")
		waitScreen(t, tm, "Filter: urgency:loud")
		press(tm, "esc")
	}},
	{"x", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		// Keys typed fast come as one message.
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/event-04")})
		press(tm, "enter")
		waitScreen(t, tm, "11 of 50 events shown")
		press(tm, "x")
		waitScreen(t, tm, "50 of 50 events shown")
	}},
	{"n", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "/")
		typeText(tm, "event-02")
		press(tm, "enter", "x", "home", "n")
		waitSelected(t, tm, "event-020")
		press(tm, "n")
		waitSelected(t, tm, "event-021")
	}},
	{"N", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "/")
		typeText(tm, "event-02")
		press(tm, "enter", "x", "N")
		waitSelected(t, tm, "event-029")
	}},
	{"c", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "home", "c")
		waitSelected(t, tm, "critical-010")
		press(tm, "c")
		waitScreen(t, tm, "No further critical event.")
	}},
	{"C", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "C")
		waitSelected(t, tm, "critical-010")
	}},
	{"m", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "m")
		waitScreen(t, tm, ">*")
	}},
	{"'", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "up", "up", "m")
		waitScreen(t, tm, ">*")
		press(tm, "home", "'")
		waitSelected(t, tm, "event-048")
	}},
	{"enter", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "enter")
		waitScreen(t, tm, "Event ev-050 type aaep:agent.tool.invoked")
		waitScreen(t, tm, `"event_id": "ev-050"`)
	}},
	{"t", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "t")
		waitScreen(t, tm, "+ 49.000s")
	}},
	{"w", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "enter", "w")
		waitScreen(t, tm, "(long lines wrapped)")
	}},
	{"tab", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "tab")
		waitScreen(t, tm, "Session s-1, Demo, errored, 50 events, 1 critical")
		press(tm, "tab")
		waitScreen(t, tm, "No diagnostics")
	}},
	{"y", func(t *testing.T, tm *teatest.TestModel, _ *recorder, dir string) {
		press(tm, "y")
		waitScreen(t, tm, "Saved the event JSON")
		b, err := os.ReadFile(filepath.Join(dir, "aaep-event-ev-050.json"))
		if err != nil || !bytes.Contains(b, []byte(`"ev-050"`)) {
			t.Errorf("copied file: %q, %v", b, err)
		}
	}},
	{"S", func(t *testing.T, tm *teatest.TestModel, _ *recorder, dir string) {
		press(tm, "S")
		waitScreen(t, tm, "Saved 50 lines")
		m, _ := filepath.Glob(filepath.Join(dir, "aaep-list-*.jsonl"))
		if len(m) != 1 {
			t.Fatalf("saved files: %v", m)
		}
		b, _ := os.ReadFile(m[0])
		if n := bytes.Count(b, []byte("\n")); n != 50 {
			t.Errorf("saved %d lines, want 50", n)
		}
	}},
	{"R", testRenegotiateKey},
	{"s", func(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
		press(tm, "s")
		waitScreen(t, tm, "Sending: stop.")
		if got := rec.actions(); !slices.Equal(got, []Action{{Kind: ActionStop}}) {
			t.Errorf("actions: %+v", got)
		}
	}},
	{"a", func(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
		tm.Send(confirmPrompt())
		waitScreen(t, tm, "CONFIRMATION NEEDED, prompt 1 from Demo: Pay 86.40 euros. Risk high. Default reject, 1m0s left.")
		press(tm, "a")
		waitScreen(t, tm, "Sending: accept 1.")
		tm.Send(PromptsMsg{{Number: 2, Question: true, Topic: "Which colour?"}})
		waitScreen(t, tm, "QUESTION, prompt 2")
		press(tm, "a")
		typeText(tm, "blue")
		press(tm, "enter")
		waitScreen(t, tm, "Sending: answer 2 blue.")
		if got := rec.actions(); !slices.Equal(got, []Action{{Kind: ActionAccept, Prompt: 1}, {Kind: ActionAnswer, Prompt: 2, Text: "blue"}}) {
			t.Errorf("actions: %+v", got)
		}
	}},
	{"r", func(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
		press(tm, "r")
		waitScreen(t, tm, "No prompt is waiting")
		tm.Send(confirmPrompt())
		press(tm, "r")
		waitScreen(t, tm, "Sending: reject 1.")
		if got := rec.actions(); !slices.Equal(got, []Action{{Kind: ActionReject, Prompt: 1}}) {
			t.Errorf("actions: %+v", got)
		}
	}},
	{"d", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		tm.Send(confirmPrompt())
		press(tm, "d")
		waitScreen(t, tm, "Consequence: the money leaves at once")
	}},
	{":", func(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
		press(tm, ":")
		waitScreen(t, tm, "Command: ")
		typeText(tm, "accept 2")
		press(tm, "enter")
		waitScreen(t, tm, "Sending: accept 2.")
		if got := rec.actions(); !slices.Equal(got, []Action{{Kind: ActionLine, Text: "accept 2"}}) {
			t.Errorf("actions: %+v", got)
		}
	}},
	{"T", func(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
		press(tm, "T")
		waitScreen(t, tm, "Task: type it; Enter sends it, Escape cancels.")
		typeText(tm, "fix the test")
		press(tm, "enter")
		waitScreen(t, tm, "Sending the agent the task: fix the test")
		if got := rec.actions(); !slices.Equal(got, []Action{{Kind: ActionTell, Text: "fix the test"}}) {
			t.Errorf("actions: %+v", got)
		}
	}},
	{"?", func(t *testing.T, tm *teatest.TestModel, _ *recorder, _ string) {
		press(tm, "?") // 35 keys in 16 rows: three pages
		waitScreen(t, tm, "Keys, page 1 of 3 (? shows the next page, any other key closes):")
		waitScreen(t, tm, "space or p")
		press(tm, "?")
		waitScreen(t, tm, "Keys, page 2 of 3 (? shows the next page, any other key closes):")
		waitScreen(t, tm, "A                agents view")
		press(tm, "?")
		waitScreen(t, tm, "Keys, page 3 of 3 (any key closes):")
		waitScreen(t, tm, "q or ctrl+c")
		press(tm, "?")
		waitSelected(t, tm, "event-050")
		tm.Send(tea.WindowSizeMsg{Width: 110, Height: 40})
		press(tm, "?")
		waitScreen(t, tm, "Keys (any key closes this help):")
		press(tm, "x")
		waitSelected(t, tm, "event-050")
	}},
	{"A", testAgentsKey},
	{"f", testAgentFilterKey},
	{"u", testAgentActionKey("u", Action{Kind: ActionMute, Agent: "mail"})},
	{"O", testAgentActionKey("O", Action{Kind: ActionOnly, Agent: "mail"})},
	{"H", testAgentActionKey("H", Action{Kind: ActionAll})},
	{"X", testAgentActionKey("X", Action{Kind: ActionQuitAgent, Agent: "mail"})},
	{"q", func(t *testing.T, tm *teatest.TestModel, rec *recorder, _ string) {
		press(tm, "q")
		waitScreen(t, tm, "Closing the subscription")
		if got := rec.actions(); !slices.Equal(got, []Action{{Kind: ActionQuit}}) {
			t.Errorf("actions: %+v", got)
		}
		press(tm, "q") // a second time quits at once
		tm.WaitFinished(t, teatest.WithFinalTimeout(3*time.Second))
	}},
}

func TestKeys(t *testing.T) {
	for _, tt := range keyTests {
		t.Run(strings.TrimSpace(tt.key)+"key", func(t *testing.T) {
			tm, rec, dir := startModel(t, 50)
			tt.run(t, tm, rec, dir)
			_ = tm.Quit()
		})
	}
}

// Every key the help lists has a test above.
func TestEveryHelpKeyTested(t *testing.T) {
	tested := map[string]bool{}
	for _, tt := range keyTests {
		tested[tt.key] = true
	}
	for _, col := range DefaultKeyMap().FullHelp() {
		for _, b := range col {
			if !tested[b.Help().Key] {
				t.Errorf("key %q (%s) has no test", b.Help().Key, b.Help().Desc)
			}
		}
	}
}

// With NO_COLOR (ThemeNone) the screen holds words only: no style escapes.
func TestNoColorHasNoStyles(t *testing.T) {
	m := New(Options{Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	m.Update(ItemsMsg(testItems(30)))
	m.Update(confirmPrompt())
	m.Update(ItemsMsg{{At: t0, Priority: announce.Critical, Kind: "errored", Text: "it broke"}})
	// What the producer sends is sanitized before it reaches the screen.
	m.Update(ItemsMsg{{At: t0, Kind: "event", SessionID: "s\x1b[31m-evil", Text: "hostile",
		Event: &protocol.Event{Type: "x:\x1b]0;title\x07", Tool: "t\x1b[2J", SessionID: "s\x1b[31m-evil"}}})
	s := m.View()
	if strings.Contains(s, "\x1b") {
		t.Errorf("escape in view:\n%q", s)
	}
	for _, want := range []string{"CONFIRMATION NEEDED", "CRITICAL", "BACKGROUND", "FOLLOWING", "> "} {
		if !strings.Contains(s, want) {
			t.Errorf("view lacks %q:\n%s", want, s)
		}
	}
}

// High contrast is bold and reverse video only: no colour.
func TestHighContrastHasNoColour(t *testing.T) {
	colour := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-7]|38;|4[0-7]|48;|9[0-7])`)
	view := func(theme Theme) string {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.ANSI256)
		m := New(Options{Theme: theme, Renderer: r, Location: time.UTC})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
		m.Update(ItemsMsg(testItems(12)))
		m.Update(confirmPrompt())
		return m.View()
	}
	if s := view(ThemeColor); !colour.MatchString(s) {
		t.Fatalf("the colour theme has no colour, so this test sees nothing:\n%q", s)
	}
	s := view(ThemeHighContrast)
	if !strings.Contains(s, "\x1b[1") && !strings.Contains(s, "\x1b[7") {
		t.Errorf("no bold or reverse video:\n%q", s)
	}
	if colour.MatchString(s) {
		t.Errorf("colour in the high-contrast theme:\n%q", s)
	}
}

// When the ring drops every event a paused list held, the list follows again
// instead of going blank.
func TestPausedViewDroppedFollowsAgain(t *testing.T) {
	m := New(Options{Capacity: 5, Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 12})
	m.Update(ItemsMsg(testItems(5)))
	m.pause()
	m.Update(ItemsMsg(testItems(7)[5:]))
	if m.following || !strings.Contains(m.View(), "PAUSED, 2 new") {
		t.Fatalf("not paused:\n%s", m.View())
	}
	m.Update(ItemsMsg(testItems(9)))
	if s := m.View(); !m.following || !strings.Contains(s, "following again") || !strings.Contains(s, "> ") {
		t.Errorf("paused view dropped, yet:\n%s", s)
	}
}
