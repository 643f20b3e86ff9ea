package tui

// listen.go: what a listener needs to run the view: its flags, settled
// into RunOptions; the honoured terms as the status line shows them. (An
// Action becomes the command.Command it asks for in command.go: the one
// vocabulary line mode and braille keys give too.)

import (
	"flag"
	"fmt"
	"os"

	"github.com/aaep-term/aaep-term/internal/userdir"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Flags are the command-line flags of the view (--tui and the flags that
// go with it).
type Flags struct {
	Enabled   bool
	AltScreen bool
	Theme     string
	Capacity  int
	KeyFile   string
	Clipboard string // auto, osc52 or file
}

// Add defines the flags on fs.
func (f *Flags) Add(fs *flag.FlagSet) {
	fs.BoolVar(&f.Enabled, "tui", false, "show the full-screen debug view instead of plain lines (see docs/tui.md)")
	fs.BoolVar(&f.AltScreen, "alt-screen", false, "with --tui, draw on the alternate screen (nothing is kept in the scrollback)")
	fs.StringVar(&f.Theme, "theme", "", "with --tui: color, high-contrast or none (default: none when NO_COLOR is set)")
	fs.IntVar(&f.Capacity, "tui-events", DefaultCapacity, "with --tui, how many events the list keeps")
	fs.StringVar(&f.Clipboard, "tui-clipboard", "auto", "with --tui, where y copies an event: auto (the terminal's clipboard through OSC 52 when the terminal is known to allow it, else a file), osc52 or file")
	fs.StringVar(&f.KeyFile, "tui-keys", "", "with --tui, a key `FILE` remapping keys (default: aaep-term/tui-keys in the user config dir, when present)")
}

// Check refuses a --theme or --tui-clipboard the view does not know, before
// anything starts; a command reports such an error as a usage error.
func (f Flags) Check() error {
	if _, ok := ParseTheme(f.Theme); !ok {
		return fmt.Errorf("--theme must be color, high-contrast or none, not %q", f.Theme)
	}
	return checkClipboard(f.Clipboard)
}

// checkClipboard refuses a --tui-clipboard mode other than auto, osc52 or file.
func checkClipboard(mode string) error {
	switch mode {
	case "auto", "", "osc52", "file":
		return nil
	}
	return fmt.Errorf("--tui-clipboard must be auto, osc52 or file, not %q", mode)
}

// RunOptions settles what the flags name: the theme (none by default when
// color is off), the key map file and the clipboard; it refuses what Check
// refuses. getenv leads to the config directory and the terminal.
func (f Flags) RunOptions(color bool, getenv func(string) string) (RunOptions, error) {
	if err := f.Check(); err != nil {
		return RunOptions{}, err
	}
	theme, _ := ParseTheme(f.Theme)
	if f.Theme == "" && !color {
		theme = ThemeNone
	}
	keys, err := LoadKeyMap(f.KeyFile, getenv)
	if err != nil {
		return RunOptions{}, err
	}
	clip, err := ParseClipboard(f.Clipboard, getenv)
	if err != nil {
		return RunOptions{}, err
	}
	return RunOptions{Options: Options{Capacity: f.Capacity, Theme: theme, Keys: keys}, AltScreen: f.AltScreen, Copy: clip}, nil
}

// ParseClipboard decides where y copies to, as --tui-clipboard says:
// auto, osc52 or file.
func ParseClipboard(mode string, getenv func(string) string) (Clipboard, error) {
	switch mode {
	case "auto", "":
		return DetectClipboard(getenv, TmuxOption), nil
	case "osc52":
		return Clipboard{OSC52: true, Via: "OSC 52 (--tui-clipboard osc52)"}, nil
	case "file":
		return Clipboard{Via: "--tui-clipboard file"}, nil
	}
	return Clipboard{}, checkClipboard(mode)
}

// LoadKeyMap reads the key file named, or the user's default one (tui-keys
// in the config directory getenv leads to) when it exists.
func LoadKeyMap(name string, getenv func(string) string) (*KeyMap, error) {
	keys := DefaultKeyMap()
	if name == "" {
		var err error
		if name, err = userdir.File(getenv, "tui-keys"); err != nil {
			return &keys, nil
		}
		if _, err := os.Stat(name); err != nil {
			return &keys, nil
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--tui-keys: %w", err)
	}
	defer f.Close()
	if err := keys.Remap(f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &keys, nil
}

// TermsOf is what the status line shows of the capabilities a producer
// honours, sanitized.
func TermsOf(c protocol.Capabilities) Terms {
	t := Terms{
		Rate:      c.MaxEventsPerSecond,
		Verbosity: protocol.Sanitize(c.PreferredVerbosity),
		Languages: names(c.Languages),
	}
	if f := c.EventFilters; f != nil {
		t.Include, t.Exclude = names(f.Include), names(f.Exclude)
	}
	return t
}

// names keeps the names in l that are not empty once sanitized.
func names(l []string) []string {
	out := make([]string, 0, len(l))
	for _, s := range l {
		if s = protocol.Name(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// PromptFrom is PromptOf for a listener watching several agents: the
// prompt is shown as agent's, the label the list names it by. An empty
// label keeps the name the producer gave.
func PromptFrom(agent string, p *session.Prompt) Prompt {
	pr := PromptOf(p)
	if agent != "" {
		pr.Agent = agent // sanitized when shown, as every prompt's text
	}
	return pr
}

// ShowPrompts shows the prompts waiting, copied (PromptOf) on the caller's
// goroutine, so the view never reads the engine.
func (pr *Program) ShowPrompts(ps []*session.Prompt) {
	prompts := make([]Prompt, len(ps))
	for i, p := range ps {
		prompts[i] = PromptOf(p)
	}
	pr.SetPrompts(prompts)
}
