package console

// playtui.go: a capture played in the debug view of aaep-listen (play
// --tui): the keys that steer playing and the view's actions as lines.

import (
	"os"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/tui"
)

// StartPlayTUI starts the debug view for playing source. Its command key
// sends typed lines, which steer playing like the lines typed in line mode.
func StartPlayTUI(tio *term.IO, source string) *tui.Program {
	theme := tui.ThemeColor
	if !tio.Color {
		theme = tui.ThemeNone
	}
	dir, _ := os.Getwd() // where s saves the history; "" is the current directory anyway
	return tui.Start(tui.RunOptions{
		Options: tui.Options{
			Theme:     theme,
			Endpoint:  source,
			Transport: "a capture replayed by aaep-replay",
			SaveDir:   dir,
			Bindings:  playKeys,
		},
		In:  tio.In,
		Out: tio.Out,
	})
}

// PlayCommands are the view's actions as lines that steer playing, in
// order; it closes when actions closes.
func PlayCommands(actions <-chan tui.Action) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		for a := range actions {
			out <- PlayLine(a)
		}
	}()
	return out
}

// PlayLine is the line that steers playing for a: a binding's or the
// command key's line as it is, quit for quit. Playing answers no prompt
// and silences nothing, so any other action is its words, which playing
// says it does not take; the silence key is not "stop", which would end
// playing.
func PlayLine(a tui.Action) string {
	switch a.Kind {
	case tui.ActionLine:
		return a.Text
	case tui.ActionQuit:
		return "quit"
	case tui.ActionStop:
		return "silence"
	}
	return a.String()
}

// playKeys steer playing in the TUI; they come before the view's own keys.
var playKeys = []tui.Binding{
	{Keys: []string{"P"}, Command: "toggle", Help: "pause or resume playing"},
	{Keys: []string{"."}, Command: "step", Help: "play the next message, then pause"},
	{Keys: []string{"]"}, Command: "next critical", Help: "jump to the next critical event"},
	{Keys: []string{"["}, Command: "previous critical", Help: "jump to the previous critical event"},
	{Keys: []string{"}"}, Command: "next mark", Help: "jump to the next mark"},
	{Keys: []string{"{"}, Command: "previous mark", Help: "jump to the previous mark"},
	{Keys: []string{"+"}, Command: "seek +10s", Help: "move 10 seconds on"},
	{Keys: []string{"-"}, Command: "seek -10s", Help: "move 10 seconds back"},
	{Keys: []string{">"}, Command: "faster", Help: "play faster"},
	{Keys: []string{"<"}, Command: "slower", Help: "play slower"},
	{Keys: []string{"M"}, Command: "mark", Help: "set a mark here"},
	{Keys: []string{"W"}, Command: "where", Help: "say where playing is"},
}

// PlayKeysHelp says the keys of playKeys in words, for the TUI's first lines.
const PlayKeysHelp = "Keys: P pause or resume, . step, ] and [ next and previous critical event, } and { next and previous mark, M set a mark, + and - move 10 seconds, > and < faster and slower, W where; : types a command such as seek 1m30s."
