package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// widget is one way of answering a question, picked from the kinds of
// answer it accepts.
type widget int

const (
	widgetChoice widget = iota // a numbered list: arrows choose, enter answers
	widgetYesNo                // y or n
	widgetNumber               // a line that must hold a number
	widgetText                 // a line of free text
)

func (w widget) String() string {
	return [...]string{"a choice", "yes or no", "a number", "free text"}[w]
}

// widgetsFor lists the widgets that answer p, the most specific first.
// A question naming no kind we know is answered with free text.
func widgetsFor(p *Prompt) []widget {
	has := func(k string) bool {
		for _, x := range p.Kinds {
			if x == k {
				return true
			}
		}
		return false
	}
	var ws []widget
	if has("multiple_choice") && len(p.ChoiceLabels) > 0 {
		ws = append(ws, widgetChoice)
	}
	if has("yes_no") {
		ws = append(ws, widgetYesNo)
	}
	if has("numeric") {
		ws = append(ws, widgetNumber)
	}
	if has("freetext") || len(ws) == 0 {
		ws = append(ws, widgetText)
	}
	return ws
}

// clarifier is the answer being given to a question.
type clarifier struct {
	prompt  Prompt
	widgets []widget
	at      int // the widget in use
	choice  int // the selected choice, from 0
}

func (c *clarifier) widget() widget { return c.widgets[c.at] }

// openClarifier starts answering question p.
func (m *Model) openClarifier(p Prompt) {
	m.clar = &clarifier{prompt: p, widgets: widgetsFor(&p)}
	m.mode = modeAnswer
	m.input.set("")
	m.clarifyHint()
}

// clarifyHint says on the message line how to answer with the widget in use.
func (m *Model) clarifyHint() {
	c := m.clar
	var how string
	switch c.widget() {
	case widgetChoice:
		how = "up and down choose, a digit picks by number, enter answers"
	case widgetYesNo:
		how = "press y for yes or n for no"
	case widgetNumber:
		how = "type a number and press enter"
	case widgetText:
		how = "type your answer and press enter"
	}
	s := fmt.Sprintf("Answering prompt %d with %s: %s; esc cancels.", c.prompt.Number, c.widget(), how)
	if len(c.widgets) > 1 {
		var others []string
		for i, w := range c.widgets {
			if i != c.at {
				others = append(others, w.String())
			}
		}
		s += " Tab answers with " + strings.Join(others, " or ") + " instead."
	}
	m.message = s
}

// clarifyKey handles a key while a question is being answered.
func (m *Model) clarifyKey(msg tea.KeyMsg) {
	c := m.clar
	switch msg.Type {
	case tea.KeyEsc:
		m.mode, m.clar = modeList, nil
		m.message = fmt.Sprintf("Not answered: prompt %d still waits.", c.prompt.Number)
		return
	case tea.KeyTab:
		c.at = (c.at + 1) % len(c.widgets)
		m.input.set("")
		m.clarifyHint()
		return
	}
	switch c.widget() {
	case widgetChoice:
		m.choiceKey(msg)
	case widgetYesNo:
		switch {
		case msg.String() == "y" || msg.String() == "Y":
			m.sendAnswer("yes")
		case msg.String() == "n" || msg.String() == "N":
			m.sendAnswer("no")
		case key.Matches(msg, m.keys.PromptDetails):
			m.promptDetail = !m.promptDetail
		}
	default:
		if msg.Type != tea.KeyEnter {
			m.input.update(msg)
			return
		}
		text := strings.TrimSpace(m.input.String())
		if text == "" {
			m.message = "Nothing sent: the answer is empty; esc cancels."
			return
		}
		if c.widget() == widgetNumber {
			f, err := strconv.ParseFloat(text, 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				m.message = fmt.Sprintf("Not sent: %q is not a number; type digits, such as 42 or 2.5.", text)
				return
			}
		}
		m.sendAnswer(text)
	}
}

func (m *Model) choiceKey(msg tea.KeyMsg) {
	c := m.clar
	n := len(c.prompt.ChoiceLabels)
	switch msg.Type {
	case tea.KeyUp:
		c.choice = max(c.choice-1, 0)
	case tea.KeyDown:
		c.choice = min(c.choice+1, n-1)
	case tea.KeyHome:
		c.choice = 0
	case tea.KeyEnd:
		c.choice = n - 1
	case tea.KeyEnter:
		// The number, not the value: the listener reads a number as the
		// choice of that number first, whatever the values are.
		m.sendAnswer(strconv.Itoa(c.choice + 1))
	default:
		if key.Matches(msg, m.keys.PromptDetails) {
			m.promptDetail = !m.promptDetail
		}
	case tea.KeyRunes:
		if len(msg.Runes) != 1 {
			return
		}
		r := msg.Runes[0]
		switch {
		case r >= '1' && r <= '9' && int(r-'0') <= n:
			c.choice = int(r - '1')
		case key.Matches(msg, m.keys.PromptDetails):
			m.promptDetail = !m.promptDetail
		}
	}
}

// sendAnswer hands the answer to the listener and closes the widget.
func (m *Model) sendAnswer(text string) {
	n := m.clar.prompt.Number
	m.mode, m.clar = modeList, nil
	m.act(Action{Kind: ActionAnswer, Prompt: n, Text: text})
}

// clarifyView draws the choice list in n rows, when the widget in use is
// one, and returns the selected choice's row; ok is false otherwise.
func (m *Model) clarifyView(n int) (rows []string, row int, ok bool) {
	c := m.clar
	if c == nil || c.widget() != widgetChoice {
		return nil, 0, false
	}
	lines := []string{fmt.Sprintf("CHOICES for prompt %d: %s", c.prompt.Number, protocol.Line(c.prompt.Topic))}
	top := 0
	if list := n - 1; c.choice >= list {
		top = c.choice - list + 1
	}
	for i := top; i < len(c.prompt.ChoiceLabels); i++ {
		mark := "  "
		if i == c.choice {
			mark = "> "
		}
		lines = append(lines, fmt.Sprintf("%s%d %s", mark, i+1, c.prompt.ChoiceLabels[i]))
	}
	return m.fit(lines, n), min(1+c.choice-top, n-1), true
}

// answerLabel labels the line an answer is typed on, or where y or n is pressed.
func (c *clarifier) answerLabel() string {
	switch c.widget() {
	case widgetYesNo:
		return fmt.Sprintf("Answer to prompt %d, yes or no (y or n): ", c.prompt.Number)
	case widgetNumber:
		return fmt.Sprintf("Answer to prompt %d, a number: ", c.prompt.Number)
	}
	return fmt.Sprintf("Answer to prompt %d: ", c.prompt.Number)
}
