// tui.go: play --tui: the capture in the debug view of aaep-listen.

package main

import (
	"os"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/tui"
)

// startPlayTUI starts the debug view for playing source. Its command key
// sends typed lines, which steer playing like the lines typed in line mode.
func startPlayTUI(tio *term.IO, source string) *tui.Program {
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
		},
		In:  tio.In,
		Out: tio.Out,
	})
}
