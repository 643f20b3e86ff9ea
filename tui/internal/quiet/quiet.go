// Package quiet stops Bubble Tea v1 from querying the terminal when it loads:
// its init asks for the background colour (an escape sequence, and up to 5 s
// of waiting on terminals that do not answer), even in plain line mode.
//
// Go initializes this package before Bubble Tea (it needs only os and its
// import path sorts first), so it can hide TERM for that moment; package tui
// puts TERM back in its own init, which runs after Bubble Tea's.
package quiet

import "os"

var term, set = os.LookupEnv("TERM")

func init() {
	os.Setenv("TERM", "dumb") // termenv sends no query to a dumb terminal
}

// Restore puts TERM back as it was.
func Restore() {
	if set {
		os.Setenv("TERM", term)
	} else {
		os.Unsetenv("TERM")
	}
}
