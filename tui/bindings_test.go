package tui

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
)

// Extra bindings send their command and come before the list's own keys;
// keys they do not name keep their meaning.
func TestBindings(t *testing.T) {
	var sent []Action
	m := New(Options{Capacity: 10, Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC,
		Bindings: []Binding{{Keys: []string{"."}, Command: "step"}, {Keys: []string{"]"}, Command: "next critical"}, {Keys: []string{"p"}, Command: "toggle"}},
		Act:      func(a Action) bool { sent = append(sent, a); return true }})
	for _, k := range []string{".", "]", "p", "?"} {
		m.Update(keyMsg(k))
	}
	want := []Action{{Kind: ActionLine, Text: "step"}, {Kind: ActionLine, Text: "next critical"}, {Kind: ActionLine, Text: "toggle"}}
	if !slices.Equal(sent, want) {
		t.Errorf("sent %+v, want %+v", sent, want)
	}
	if m.mode != modeHelp {
		t.Error("? no longer opens the help")
	}
	help := strings.Join(m.helpEntries(), "\n")
	for _, want := range []string{".                the command step", "]                the command next critical"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help lacks %q:\n%s", want, help)
		}
	}
}
