package tui

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/aaep-term/aaep-term/session"
)

// termsForm is the renegotiate dialog: one field a line, each labelled in
// words, pre-filled with the terms in force. Submitting it sends an
// ActionSet for every field changed; the listener renegotiates and says in
// words what the producer granted.
type termsForm struct {
	fields []formField
	active int
}

type formField struct {
	label   string // what the field is, in words
	term    string // the term changed, as ActionSet names it: "rate", "lang"…
	initial string
	input   lineInput
	list    bool // a comma-separated list
}

// Field labels; the real cursor rests after the active one.
const (
	formRate      = "Rate, most events a second (blank: no limit): "
	formVerbosity = "Verbosity (terse, normal or detailed): "
	formLanguages = "Languages, most wanted first (yo,en): "
	formInclude   = "Only these event types (agent.tool.*; blank: all): "
	formExclude   = "Never these event types (agent.progress.*): "
)

func newTermsForm(t *Terms) *termsForm {
	if t == nil {
		t = &Terms{}
	}
	rate := ""
	if t.Rate > 0 {
		rate = strconv.Itoa(t.Rate)
	}
	f := &termsForm{fields: []formField{
		{label: formRate, term: "rate", initial: rate},
		{label: formVerbosity, term: "verbosity", initial: t.Verbosity},
		{label: formLanguages, term: "lang", initial: strings.Join(t.Languages, ","), list: true},
		{label: formInclude, term: "include", initial: strings.Join(t.Include, ","), list: true},
		{label: formExclude, term: "exclude", initial: strings.Join(t.Exclude, ","), list: true},
	}}
	for i := range f.fields {
		f.fields[i].input.set(f.fields[i].initial)
	}
	return f
}

// value is what the field holds, tidied: lists without blanks or spaces.
func (fl *formField) value() string {
	v := strings.TrimSpace(fl.input.String())
	if !fl.list {
		return v
	}
	var items []string
	for _, s := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		items = append(items, s)
	}
	return strings.Join(items, ",")
}

// changes are the actions the changed fields ask for, or an error naming
// the field to mend.
func (f *termsForm) changes() ([]Action, error) {
	var cmds []Action
	for i := range f.fields {
		fl := &f.fields[i]
		v := fl.value()
		if v == fl.initial {
			continue
		}
		switch fl.term {
		case "rate":
			// The listener can change a limit, not lift one.
			if n, err := strconv.Atoi(v); err != nil || n < 1 {
				f.active = i
				return nil, fmt.Errorf("the rate must be a whole number of events a second, 1 or more, not %q (a limit cannot be lifted while listening)", v)
			}
		case "verbosity":
			if _, err := session.ParseVerbosity(v); err != nil {
				f.active = i
				return nil, fmt.Errorf("the %w", err)
			}
		case "lang":
			if v == "" {
				f.active = i
				return nil, fmt.Errorf("give at least one language, such as en")
			}
		}
		cmds = append(cmds, Action{Kind: ActionSet, Term: fl.term, Text: v})
	}
	return cmds, nil
}

// nextTerms sends the next change the dialog asked for, now that the
// producer has answered the one before.
func (m *Model) nextTerms() {
	if len(m.queuedTerms) == 0 {
		return
	}
	c := m.queuedTerms[0]
	m.queuedTerms = m.queuedTerms[1:]
	m.act(c)
}

// formKey handles a key while the dialog is open.
func (m *Model) formKey(msg tea.KeyMsg) {
	f := m.form
	switch msg.Type {
	case tea.KeyEsc:
		m.form, m.mode = nil, modeList
		m.message = "Renegotiation cancelled: the terms stay as they are."
		if len(m.queuedTerms) > 0 {
			m.message = "Renegotiation cancelled: the changes not sent yet are dropped."
			m.queuedTerms = nil
		}
	case tea.KeyTab, tea.KeyDown:
		f.active = (f.active + 1) % len(f.fields)
	case tea.KeyShiftTab, tea.KeyUp:
		f.active = (f.active + len(f.fields) - 1) % len(f.fields)
	case tea.KeyEnter:
		cmds, err := f.changes()
		if err != nil {
			m.message = "Not sent: " + err.Error() + "."
			return
		}
		m.form, m.mode = nil, modeList
		if len(cmds) == 0 {
			m.message = "Nothing changed: no renegotiation sent."
			return
		}
		// The listener asks the producer for one change at a time: the
		// others wait for the answer to the one before (TermsMsg).
		m.act(cmds[0])
		m.queuedTerms = cmds[1:]
		if len(cmds) > 1 {
			m.message = fmt.Sprintf("Asking for %s first; %d more changes follow, one at a time as the producer answers.", cmds[0], len(cmds)-1)
		}
	default:
		f.fields[f.active].input.update(msg)
	}
}

// formView draws the dialog in n rows and returns the row and column of the
// active field's cursor.
func (m *Model) formView(n int) (rows []string, row, col int) {
	f := m.form
	lines := []string{
		"RENEGOTIATE: change fields, then press enter to send the changes.",
		"Keys: tab next field, shift+tab previous field, enter send, esc cancel.",
	}
	if m.terms == nil {
		lines = append(lines, "No terms known yet: fields left blank keep the producer's choice.")
	}
	row = len(lines) + f.active
	for i, fl := range f.fields {
		mark := "  "
		if i == f.active {
			mark = "> "
			col = ansi.StringWidth(mark+fl.label) + fl.input.column()
		}
		lines = append(lines, mark+fl.label+fl.input.String())
	}
	return m.fit(lines, n), min(row, n-1), col
}
