package tui

import (
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// lineInput is a one-line text field. It draws no cursor of its own: the
// real terminal cursor is put at its position, where screen readers look.
type lineInput struct {
	value []rune
	pos   int
}

func (in *lineInput) set(s string) { in.value, in.pos = []rune(s), len([]rune(s)) }

func (in *lineInput) String() string { return string(in.value) }

// column is the cursor's cell within the field.
func (in *lineInput) column() int { return ansi.StringWidth(string(in.value[:in.pos])) }

func (in *lineInput) update(msg tea.KeyMsg) {
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		r := msg.Runes
		if msg.Type == tea.KeySpace {
			r = []rune{' '}
		}
		r = printable(r)
		in.value = append(in.value[:in.pos], append(append([]rune{}, r...), in.value[in.pos:]...)...)
		in.pos += len(r)
	case tea.KeyBackspace:
		if in.pos > 0 {
			in.value = append(in.value[:in.pos-1], in.value[in.pos:]...)
			in.pos--
		}
	case tea.KeyDelete:
		if in.pos < len(in.value) {
			in.value = append(in.value[:in.pos], in.value[in.pos+1:]...)
		}
	case tea.KeyLeft:
		in.pos = max(in.pos-1, 0)
	case tea.KeyRight:
		in.pos = min(in.pos+1, len(in.value))
	case tea.KeyHome, tea.KeyCtrlA:
		in.pos = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		in.pos = len(in.value)
	case tea.KeyCtrlU:
		in.value, in.pos = in.value[in.pos:], 0
	}
}

// printable turns control characters (a pasted newline or tab, an escape)
// into spaces: a typed line stays one line with nothing hidden in it.
func printable(rs []rune) []rune {
	out := make([]rune, len(rs))
	for i, r := range rs {
		if unicode.IsControl(r) {
			r = ' '
		}
		out[i] = r
	}
	return out
}
