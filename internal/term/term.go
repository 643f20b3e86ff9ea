// Package term decides, once at start-up, what the user's terminal can do:
// whether streams are terminals, whether colour and escape sequences are allowed.
package term

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/aaep-term/aaep-term/internal/textout"
)

// IO holds the process's standard streams and what they may be used for.
// Commands ask it; nothing else looks at the terminal.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY  bool // stdin is a terminal: the user types at it
	OutTTY bool // stdout is a terminal
	ErrTTY bool // stderr is a terminal (only System sets it)

	// Plain is true when output must be plain appended lines with no escape
	// sequences at all. It is the default whenever stdout is not a terminal.
	Plain bool
	// Color is true when colour may be added to words (never replacing them).
	Color bool
}

// Env is the subset of the environment IO looks at; tests pass their own.
type Env func(key string) string

// System builds IO from the process's streams and environment. forcePlain is
// the --plain flag.
func System(forcePlain bool) *IO {
	st := New(os.Stdin, os.Stdout, os.Stderr, isTerminal(os.Stdin), isTerminal(os.Stdout), os.Getenv, forcePlain)
	st.ErrTTY = isTerminal(os.Stderr)
	return st
}

// New builds IO from explicit parts: the TTY answers and the environment.
// Plain output is chosen when stdout is not a terminal, TERM is "dumb" or
// unset, NO_COLOR or ACCESSIBLE is set, or forcePlain is true.
func New(in io.Reader, out, errOut io.Writer, inTTY, outTTY bool, env Env, forcePlain bool) *IO {
	t := env("TERM")
	plain := forcePlain || !outTTY || t == "" || t == "dumb" ||
		env("NO_COLOR") != "" || env("ACCESSIBLE") != ""
	return &IO{
		In: in, Out: out, ErrOut: errOut,
		InTTY: inTTY, OutTTY: outTTY,
		Plain: plain,
		Color: !plain,
	}
}

// Test returns IO over buffers, with no terminal: plain output.
func Test() (io *IO, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return New(in, out, errOut, false, false, func(string) string { return "" }, false), in, out, errOut
}

// isTerminal reports whether f is a terminal: it answers the terminal's
// own request for its settings. Being a character device is not enough:
// /dev/null is one too, and a run with </dev/null has no one typing.
func isTerminal(f *os.File) bool { return isTTY(f) }

// Printf writes to Out: format is ours and passes as it is; every argument
// is turned into text and sanitized as one line (see protocol.Line), so
// nothing from a producer, a file, an HTTP answer or a child process can
// carry an escape sequence or start a line. Commands print through Printf
// and Eprintf only (TestNoDirectWrites holds them to it).
func (io *IO) Printf(format string, a ...any) {
	textout.Fprintf(io.Out, format, a...)
}

// Eprintf is Printf on ErrOut.
func (io *IO) Eprintf(format string, a ...any) {
	textout.Fprintf(io.ErrOut, format, a...)
}

// Usage writes a help text of ours, a constant, to Out as it is.
func (io *IO) Usage(text string) { fmt.Fprint(io.Out, text) }

// EUsage writes a help text of ours, a constant, to ErrOut as it is.
func (io *IO) EUsage(text string) { fmt.Fprint(io.ErrOut, text) }
