package tui

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
)

// Extra bindings send their command and come before the list's own keys;
// keys they do not name keep their meaning.
func TestBindings(t *testing.T) {
	var sent []string
	m := New(Options{Capacity: 10, Theme: ThemeNone, Renderer: lipgloss.NewRenderer(io.Discard), Location: time.UTC,
		Bindings: []Binding{{Keys: []string{"."}, Command: "step"}, {Keys: []string{"]"}, Command: "next critical"}, {Keys: []string{"p"}, Command: "toggle"}},
		Command:  func(s string) bool { sent = append(sent, s); return true }})
	for _, k := range []string{".", "]", "p", "?"} {
		m.Update(keyMsg(k))
	}
	if len(sent) != 3 || sent[0] != "step" || sent[1] != "next critical" || sent[2] != "toggle" {
		t.Errorf("sent %q", sent)
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
