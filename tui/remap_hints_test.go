package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// With keys remapped, every hint names the keys bound: the prompt's keys
// line, the end-of-stream status, the empty filter's advice and the
// question's advice; the remapped details key works in a choice list.
func TestHintsFollowRemappedKeys(t *testing.T) {
	keys := DefaultKeyMap()
	if err := keys.Remap(strings.NewReader("accept = A\nreject = X\nprompt-details = D\nquit = ctrl+q q\nclear-filter = ctrl+x\n")); err != nil {
		t.Fatal(err)
	}
	opts := testOptions(t.TempDir(), &recorder{})
	opts.Keys = &keys
	m := New(opts)
	m.cur = &cursorPos{}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 24})
	m.Update(ItemsMsg(testItems(3)))
	m.Update(confirmPrompt())
	if v := m.View(); !strings.Contains(v, "Keys: A accept, X reject, D details.") {
		t.Errorf("confirmation keys not as bound:\n%s", v)
	}
	m.Update(PromptsMsg{{Number: 2, Question: true, Topic: "Which time?", Kinds: []string{"multiple_choice"},
		Choices: "Choices: 1 seven, 2 eight.", ChoiceLabels: []string{"seven", "eight"}}})
	if v := m.View(); !strings.Contains(v, "Keys: A answer with a choice, D details.") {
		t.Errorf("question keys not as bound:\n%s", v)
	}
	m.Update(keyMsg("X"))
	if !strings.Contains(m.message, "press A and type an answer") {
		t.Errorf("message %q", m.message)
	}
	m.Update(keyMsg("A"))
	m.Update(keyMsg("D"))
	if !m.promptDetail {
		t.Error("D did not show the prompt's details in the choice list")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	m.Update(PromptsMsg{})
	m.Update(endMsg{})
	if v := m.View(); !strings.Contains(v, "The stream has ended; press ctrl+q to quit") {
		t.Errorf("end of stream not told with the quit key bound:\n%s", v)
	}
	m.Update(keyMsg("/"))
	typeKeys(m, "nothing-matches-this")
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if v := m.View(); !strings.Contains(v, "press ctrl+x to clear it") {
		t.Errorf("empty filter's advice not as bound:\n%s", v)
	}
}

func typeKeys(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}
