package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/aaep-term/aaep-term/internal/safefile/safefiletest"
)

// Saving the selected event or the list never writes through a symbolic
// link planted at the name it would use; the file it points at is left alone.
func TestSaveRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := safefiletest.Link(t, dir, "aaep-event-ev-003.json", "aaep-list-"+t0.Add(time.Minute).Format("20060102-150405")+".jsonl")
	opts := testOptions(dir, &recorder{})
	m := New(opts)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 20})
	m.Update(ItemsMsg(testItems(3)))
	m.Update(keyMsg("y"))
	if !strings.Contains(m.message, "symbolic link") {
		t.Errorf("saving the event: %q", m.message)
	}
	if msg := m.saveVisible(); !strings.Contains(msg, "symbolic link") {
		t.Errorf("saving the list: %q", msg)
	}
	safefiletest.Intact(t, victim)
}
