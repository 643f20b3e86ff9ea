package tui

import "github.com/aaep-term/aaep-term/tui/internal/quiet"

// Bubble Tea's init has run by now, without querying the terminal.
func init() { quiet.Restore() }
