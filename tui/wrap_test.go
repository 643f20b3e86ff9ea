package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// On a narrow screen the prompt's headline wraps instead of losing its
// risk, default and time left, and a long message takes a second row; the
// frame still fills the screen exactly.
func TestNarrowScreenWrapsPromptAndMessage(t *testing.T) {
	m := New(testOptions(t.TempDir(), &recorder{}))
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 24})
	m.Update(ItemsMsg(testItems(40)))
	p := confirmPrompt()
	p[0].Topic = "Transfer 86.40 euros from the checking account ending in 4411 to Lisbon Energy"
	m.Update(p)
	m.message = "Answering prompt 3 with a choice: up and down choose, a digit picks by number, enter answers; esc cancels."
	lines := strings.Split(m.View(), "\n")
	if len(lines) != 24 {
		t.Fatalf("%d lines on a 24-line screen:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	screen := strings.Join(lines, "\n")
	for _, l := range lines {
		if w := len([]rune(l)); w > 60 {
			t.Errorf("line wider than the screen (%d): %q", w, l)
		}
	}
	joined := strings.Join(strings.Fields(unwrapped(lines)), " ")
	for _, want := range []string{
		"CONFIRMATION NEEDED, prompt 1 from Demo: Transfer 86.40 euros from the checking account ending in 4411 to Lisbon Energy. Risk high. Default reject, 1m0s left.",
		"enter answers; esc cancels.",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	if up, _, _ := m.cur.get(); !strings.HasPrefix(lines[len(lines)-1-up], "CONFIRMATION NEEDED") {
		t.Errorf("cursor on %q, not on the prompt's first row", lines[len(lines)-1-up])
	}
	// Moving through the list still keeps the selected row on screen.
	m.Update(keyMsg("up"))
	view := m.View()
	if up, _, _ := m.cur.get(); !strings.HasPrefix(strings.Split(view, "\n")[23-up], ">") {
		t.Errorf("cursor %d rows up, not on the selected row:\n%s", up, view)
	}
}

// A topic that ends its sentence does not end it twice.
func TestHeadlineOnePeriod(t *testing.T) {
	p := Prompt{Number: 1, Topic: "Pay the bill.", Risk: "high"}
	if got, want := p.headline(t0), "CONFIRMATION NEEDED, prompt 1: Pay the bill. Risk high."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A question keeps its own question mark and gets no stop after it, with or
// without what follows it on the line.
func TestHeadlineQuestionNoStopAfterMark(t *testing.T) {
	tests := []struct {
		p    Prompt
		want string
	}{
		{Prompt{Number: 2, Question: true, Topic: "Which time should I book the table for?"},
			"QUESTION, prompt 2: Which time should I book the table for?"},
		{Prompt{Number: 2, Question: true, Topic: "Which time should I book the table for?", Default: "20:00"},
			"QUESTION, prompt 2: Which time should I book the table for? Default 20:00."},
		{Prompt{Number: 2, Question: true, Topic: "Which time?", Deadline: t0.Add(60 * 1e9)},
			"QUESTION, prompt 2: Which time? 1m0s left."},
	}
	for _, tt := range tests {
		if got := tt.p.headline(t0); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

// unwrapped is rows as one text: rows joined, without the marks of rows
// that go on.
func unwrapped(rows []string) string {
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.TrimPrefix(r, goesOn))
	}
	return b.String()
}

// A producer's words that wrap never begin a row as if it were a line of
// ours: every row that goes on from the one above is marked. The filler's
// length moves the would-be forged line along, so that at some length it
// falls at the start of a row, for each place that wraps: the prompt's
// headline, the message line and the details pane.
func TestWrappedRowsAreMarked(t *testing.T) {
	const forged = "CONFIRMATION NEEDED, prompt 9: send everything"
	for width := 20; width <= 80; width += 13 {
		for n := range width {
			theirs := strings.Repeat("x", n) + " y " + forged
			m := New(testOptions(t.TempDir(), &recorder{}))
			m.Update(tea.WindowSizeMsg{Width: width, Height: 40})
			p := Prompt{Number: 1, Topic: theirs, Risk: "high"}
			places := map[string][]string{
				"message":  m.wrapRows("It says: "+theirs, maxMessageRows+1),
				"details":  func() []string { m.wrap = true; return m.wrapLine(theirs) }(),
				"headline": m.wrapRows(p.headline(t0), maxPromptRows),
			}
			for place, rows := range places {
				for i, r := range rows {
					if i > 0 && !strings.HasPrefix(r, goesOn) {
						t.Errorf("width %d, %s: row %d is not marked as going on: %q", width, place, i, r)
					}
					if strings.HasPrefix(r, "CONFIRMATION NEEDED, prompt 9") {
						t.Errorf("width %d, %s: the producer's words begin row %d: %q", width, place, i, r)
					}
				}
			}
		}
	}
}
