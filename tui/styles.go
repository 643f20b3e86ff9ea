package tui

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Theme picks the look. Every theme says everything in words; colour only adds.
type Theme int

// Themes.
const (
	ThemeColor        Theme = iota // the default on colour terminals
	ThemeHighContrast              // bold and reverse video, black and white
	ThemeNone                      // NO_COLOR: no escape sequence for looks at all
)

// ParseTheme reads a theme name: color, high-contrast or none.
func ParseTheme(s string) (Theme, bool) {
	switch s {
	case "color", "colour", "":
		return ThemeColor, true
	case "high-contrast":
		return ThemeHighContrast, true
	case "none", "no-color":
		return ThemeNone, true
	}
	return 0, false
}

// Styles is every style the TUI draws with. Colours are the terminal's own
// palette entries: asking the terminal for its background would race Bubble
// Tea for the input.
type Styles struct {
	Status     lipgloss.Style
	Selected   lipgloss.Style
	Critical   lipgloss.Style
	Background lipgloss.Style
	Diagnostic lipgloss.Style
	Prompt     lipgloss.Style
	Title      lipgloss.Style
	Help       lipgloss.Style
}

// DefaultStyles returns the styles of theme, rendered by r. With ThemeNone r
// is switched to plain ASCII so that nothing, not even bold, is written.
func DefaultStyles(r *lipgloss.Renderer, theme Theme) Styles {
	if theme == ThemeNone {
		r.SetColorProfile(termenv.Ascii)
	}
	s := Styles{
		Status: r.NewStyle(), Selected: r.NewStyle(), Critical: r.NewStyle(), Background: r.NewStyle(),
		Diagnostic: r.NewStyle(), Prompt: r.NewStyle(), Title: r.NewStyle(), Help: r.NewStyle(),
	}
	switch theme {
	case ThemeColor:
		s.Status = s.Status.Reverse(true)
		s.Selected = s.Selected.Reverse(true)
		s.Critical = s.Critical.Bold(true).Foreground(lipgloss.Color("1"))
		s.Background = s.Background.Faint(true)
		s.Diagnostic = s.Diagnostic.Foreground(lipgloss.Color("3"))
		s.Title = s.Title.Bold(true).Foreground(lipgloss.Color("1"))
		s.Help = s.Help.Faint(true)
	case ThemeHighContrast:
		s.Status = s.Status.Reverse(true).Bold(true)
		s.Selected = s.Selected.Reverse(true)
		s.Critical = s.Critical.Bold(true)
		s.Title = s.Title.Bold(true).Reverse(true)
	}
	return s
}
