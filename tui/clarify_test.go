package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

func question(kinds ...string) Prompt {
	return Prompt{Number: 3, Question: true, Agent: "Demo", Topic: "Which retirement age?", Kinds: kinds,
		ChoiceLabels: []string{"Age 60", "Age 65 (standard)", "Age 67"}, Deadline: t0.Add(2 * time.Minute)}
}

// clarifyModel is a model showing q, with the widget opened by a.
func clarifyModel(t *testing.T, q Prompt) (*Model, *recorder) {
	t.Helper()
	rec := &recorder{}
	m := New(testOptions(t.TempDir(), rec))
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	m.Update(ItemsMsg(testItems(5)))
	m.Update(PromptsMsg{q})
	m.Update(keyMsg("a"))
	return m, rec
}

// cursorLine is the line of the view the real cursor rests on.
func cursorLine(m *Model) string {
	lines := strings.Split(m.View(), "\n")
	up, _, _ := m.cur.get()
	return lines[len(lines)-1-up]
}

func TestClarifyWidgets(t *testing.T) {
	for _, tt := range []struct {
		name   string
		kinds  []string
		keys   []string
		cursor string // the line the cursor is on before the last key
		want   string // the command sent; "" for none
		msg    string // on the message line at the end
		open   bool   // the widget is still open
	}{
		{name: "choice by arrows", kinds: []string{"multiple_choice"}, keys: []string{"down", "down", "up", "enter"},
			cursor: "> 2 Age 65 (standard)", want: "answer 3 2"},
		{name: "choice by digit", kinds: []string{"multiple_choice", "freetext"}, keys: []string{"3", "enter"},
			cursor: "> 3 Age 67", want: "answer 3 3"},
		{name: "choice stops at the ends", kinds: []string{"multiple_choice"}, keys: []string{"up", "end", "down", "down", "enter"},
			cursor: "> 3 Age 67", want: "answer 3 3"},
		{name: "digit beyond the choices", kinds: []string{"multiple_choice"}, keys: []string{"9", "enter"},
			cursor: "> 1 Age 60", want: "answer 3 1"},
		{name: "yes", kinds: []string{"yes_no"}, keys: []string{"x", "y"},
			cursor: "Answer to prompt 3, yes or no (y or n): ", want: "answer 3 yes"},
		{name: "no", kinds: []string{"yes_no"}, keys: []string{"n"},
			cursor: "Answer to prompt 3, yes or no (y or n): ", want: "answer 3 no"},
		{name: "number", kinds: []string{"numeric"}, keys: []string{"6", "2", ".", "5", "enter"},
			cursor: "Answer to prompt 3, a number: 62.5", want: "answer 3 62.5"},
		{name: "not a number", kinds: []string{"numeric"}, keys: []string{"6", "x", "enter"},
			cursor: "Answer to prompt 3, a number: 6x", msg: `Not sent: "6x" is not a number`, open: true},
		{name: "free text", kinds: []string{"freetext"}, keys: []string{"a", "b", " ", "c", "enter"},
			cursor: "Answer to prompt 3: ab c", want: "answer 3 ab c"},
		{name: "empty text", kinds: []string{"freetext"}, keys: []string{"enter"},
			cursor: "Answer to prompt 3: ", msg: "Nothing sent: the answer is empty", open: true},
		{name: "no kind known is free text", keys: []string{"z", "enter"}, cursor: "Answer to prompt 3: z", want: "answer 3 z"},
		{name: "tab to the next kind", kinds: []string{"multiple_choice", "numeric"}, keys: []string{"tab", "6", "6", "enter"},
			cursor: "Answer to prompt 3, a number: 66", want: "answer 3 66"},
		{name: "esc cancels", kinds: []string{"yes_no"}, keys: []string{"esc"},
			cursor: "Answer to prompt 3, yes or no (y or n): ", msg: "Not answered: prompt 3 still waits."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, rec := clarifyModel(t, question(tt.kinds...))
			for i, k := range tt.keys {
				if i == len(tt.keys)-1 {
					if got := cursorLine(m); got != tt.cursor {
						t.Errorf("cursor on %q, want %q", got, tt.cursor)
					}
				}
				m.Update(keyMsg(k))
			}
			got := strings.Join(rec.all(), "|")
			if got != tt.want {
				t.Errorf("sent %q, want %q", got, tt.want)
			}
			if tt.msg != "" && !strings.Contains(m.message, tt.msg) {
				t.Errorf("message %q, want %q", m.message, tt.msg)
			}
			if open := m.mode == modeAnswer; open != tt.open {
				t.Errorf("widget open %v, want %v", open, tt.open)
			}
		})
	}
}

// Opening a widget says how to answer, and which other kinds tab offers.
func TestClarifyHint(t *testing.T) {
	m, _ := clarifyModel(t, question("multiple_choice", "numeric", "freetext"))
	want := "Answering prompt 3 with a choice: up and down choose, a digit picks by number, enter answers; esc cancels. Tab answers with a number or free text instead."
	if m.message != want {
		t.Errorf("message %q\nwant    %q", m.message, want)
	}
	if s := m.View(); !strings.Contains(s, "Keys: a answer with a choice or a number or free text, d details.") {
		t.Errorf("the prompt does not tell the kinds of answer:\n%s", s)
	}
}

// A prompt answered or withdrawn elsewhere closes its widget, in words.
func TestClarifyPromptGone(t *testing.T) {
	m, rec := clarifyModel(t, question("freetext"))
	m.Update(keyMsg("x"))
	m.Update(PromptsMsg{})
	if m.mode != modeList || m.message != "Prompt 3 no longer waits for an answer." {
		t.Errorf("mode %v, message %q", m.mode, m.message)
	}
	m.Update(keyMsg("enter")) // the details pane, not an answer
	if got := rec.all(); len(got) != 0 {
		t.Errorf("sent %q", got)
	}
}

// The choice list scrolls to keep the selected choice on screen.
func TestClarifyChoicesScroll(t *testing.T) {
	q := question("multiple_choice")
	q.ChoiceLabels = nil
	for i := range 30 {
		q.ChoiceLabels = append(q.ChoiceLabels, fmt.Sprintf("choice-%02d", i+1))
	}
	m, _ := clarifyModel(t, q)
	for range 25 {
		m.Update(keyMsg("down"))
	}
	if got := cursorLine(m); got != "> 26 choice-26" {
		t.Errorf("cursor on %q", got)
	}
}

// With NO_COLOR the dialog and the answer inputs are words only.
func TestWidgetsNoColor(t *testing.T) {
	for _, kinds := range [][]string{{"multiple_choice"}, {"yes_no"}, {"numeric"}, {"freetext"}} {
		m, _ := clarifyModel(t, question(kinds...))
		if s := m.View(); strings.Contains(s, "\x1b") || !strings.Contains(s, "prompt 3") {
			t.Errorf("%v: %q", kinds, s)
		}
	}
	m, _ := formModel(t, &Terms{Rate: 2})
	if s := m.View(); strings.Contains(s, "\x1b") || !strings.Contains(s, "RENEGOTIATE") {
		t.Errorf("dialog: %q", s)
	}
}

// Every key is on a page of the help, whatever the screen's height.
func TestHelpPagesShowEveryKey(t *testing.T) {
	for _, h := range []int{6, 12, 24, 60} {
		m := New(testOptions(t.TempDir(), &recorder{}))
		m.Update(tea.WindowSizeMsg{Width: 120, Height: h})
		m.Update(keyMsg("?"))
		var seen strings.Builder
		for range m.helpPages() {
			seen.WriteString(m.View())
			m.Update(keyMsg("?"))
		}
		if m.mode != modeList {
			t.Errorf("height %d: help still open after its last page", h)
		}
		for _, e := range m.helpEntries() {
			if !strings.Contains(seen.String(), e) {
				t.Errorf("height %d: %q on no page", h, e)
			}
		}
	}
}

// The prompt's countdown is redrawn every second.
func TestCountdownLive(t *testing.T) {
	now := t0.Add(time.Minute)
	opts := testOptions(t.TempDir(), &recorder{})
	opts.Now = func() time.Time { return now }
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	if cmd := m.setPrompts(confirmPrompt()); cmd == nil {
		t.Fatal("no tick started for the countdown")
	}
	if s := m.View(); !strings.Contains(s, "Default reject, 1m0s left.") {
		t.Fatalf("view:\n%s", s)
	}
	now = now.Add(5 * time.Second)
	if _, cmd := m.Update(tickMsg{}); cmd == nil {
		t.Error("the countdown stopped ticking while the prompt waits")
	}
	if s := m.View(); !strings.Contains(s, "Default reject, 55s left.") {
		t.Errorf("view after 5 s:\n%s", s)
	}
	m.Update(PromptsMsg{})
	if _, cmd := m.Update(tickMsg{}); cmd != nil {
		t.Error("still ticking with no prompt waiting")
	}
}
