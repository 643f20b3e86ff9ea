package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

// A row shows its text: the text column gets the width the fixed columns
// leave, and they shrink or drop on a narrow screen. The urgency, in words,
// stays at every width; no row is wider than the screen.
func TestRowShowsItsText(t *testing.T) {
	const text = "Tomorrow will be sunny in Lisbon."
	it := Item{At: t0, Priority: announce.Critical, Kind: "errored", Agent: "Demo Assistant",
		SessionID: "sess_469539db0c2f4e1a", Text: text,
		Event: &protocol.Event{Type: protocol.TypeSessionErrored, SessionID: "sess_469539db0c2f4e1a"}}
	for _, tc := range []struct {
		width   int
		want    []string // on the row besides the text
		notWant []string
	}{
		{160, []string{"09:00:00.000", "CRITICAL", "session.errored", "sess_469539db", "Demo Assistant: "}, nil},
		{100, []string{"09:00:00", "CRITICAL", "session.errored", "Demo Assistant: "}, []string{"sess_"}},
		{80, []string{"09:00:00", "CRITICAL", "session.errored"}, []string{"sess_", "Demo Assistant"}},
		{60, []string{"09:00:00", "CRITICAL"}, []string{"sess_", "Demo Assistant"}},
		{40, []string{"> CRITICAL   Tomorrow will be"}, []string{"09:00", "sess_", "Demo Assistant"}},
	} {
		m := New(testOptions(t.TempDir(), &recorder{}))
		m.cur = &cursorPos{}
		m.Update(tea.WindowSizeMsg{Width: tc.width, Height: 24})
		m.Update(ItemsMsg{it})
		var row string
		for _, l := range strings.Split(m.View(), "\n") {
			if strings.HasPrefix(l, ">") {
				row = l
			}
		}
		if w := ansi.StringWidth(row); w > tc.width {
			t.Errorf("width %d: row %d wide: %q", tc.width, w, row)
		}
		if tc.width > 40 && !strings.HasSuffix(row, text) {
			t.Errorf("width %d: row does not show its whole text: %q", tc.width, row)
		}
		for _, w := range tc.want {
			if !strings.Contains(row, w) {
				t.Errorf("width %d: row lacks %q: %q", tc.width, w, row)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(row, w) {
				t.Errorf("width %d: row still has %q: %q", tc.width, w, row)
			}
		}
	}
}
