// Package quiet stops Bubble Tea v1 from querying the terminal when it loads.
//
// Bubble Tea v1's init calls lipgloss.HasDarkBackground, which, on a
// terminal, writes OSC 11 and DSR queries and waits up to 5 s for answers:
// escape sequences in plain line mode, and a stall on terminals that never
// answer. Telling Lip Gloss the background first makes that call a plain
// read. Nothing is lost: the TUI's colours are the terminal's own palette
// entries, never adaptive ones, so the background is never needed.
//
// Why not something else:
//   - Importing Bubble Tea only with --tui is not possible: Go links and
//     initializes every imported package, used or not; only a separate
//     binary would avoid it.
//   - No Bubble Tea option reaches its init; v2 drops the query, but moving
//     to it is a rewrite of the TUI and its tests.
//
// It works because of the order the Go spec gives package initialization
// (go.dev/ref/spec#Package_initialization, Go 1.21 and later): of the
// packages whose imports are initialized, the first by import path goes
// first. This package imports only Lip Gloss, which Bubble Tea imports too,
// so whenever Bubble Tea could be initialized this package could be, and
// "github.com/aaep-term/…" sorts before "github.com/charmbracelet/…".
// cmd/aaep-listen's TestPlainModeSendsNoTerminalQuery fails if it stops
// working.
package quiet

import "github.com/charmbracelet/lipgloss"

func init() { lipgloss.SetHasDarkBackground(true) }
