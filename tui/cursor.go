package tui

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"sync"
)

// cursorPos is where the real terminal cursor should rest after a frame:
// up lines above the frame's last line, at column col. Braille displays and
// screen readers follow the cursor, so it sits on the selected row.
type cursorPos struct {
	mu      sync.Mutex
	up, col int
	on      bool
}

func (c *cursorPos) set(up, col int, on bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.up, c.col, c.on = up, col, on
	c.mu.Unlock()
}

func (c *cursorPos) get() (up, col int, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up, c.col, c.on
}

// cursorWriter sits between Bubble Tea and the terminal. Bubble Tea v1 leaves
// the cursor at the start of the frame's last line and expects it there; the
// writer moves it back there before every write and onto the wanted row after.
type cursorWriter struct {
	mu    sync.Mutex
	out   io.Writer
	pos   *cursorPos
	moved int  // lines the cursor was moved up after the last write
	drawn bool // a whole frame was written: moving up stays within it
}

func (w *cursorWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var buf []byte
	if w.moved > 0 {
		buf = fmt.Appendf(buf, "\r\x1b[%dB", w.moved)
	} else {
		buf = append(buf, '\r')
	}
	buf = append(buf, p...)
	w.moved = 0
	up, col, on := w.pos.get()
	if !w.drawn && bytes.Count(p, []byte{'\n'}) >= up {
		w.drawn = true
	}
	if on && w.drawn {
		if up > 0 {
			buf = fmt.Appendf(buf, "\x1b[%dA", up)
			w.moved = up
		}
		buf = append(buf, '\r')
		if col > 0 {
			buf = fmt.Appendf(buf, "\x1b[%dC", col)
		}
	}
	if _, err := w.out.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// file is a terminal: Bubble Tea reads its size and sets its modes.
type file interface {
	io.ReadWriteCloser
	Fd() uintptr
}

// ttyCursorWriter is a cursorWriter over a terminal, still seen as one.
type ttyCursorWriter struct {
	*cursorWriter
	f file
}

func (w ttyCursorWriter) Read(p []byte) (int, error) { return w.f.Read(p) }
func (w ttyCursorWriter) Close() error               { return w.f.Close() }
func (w ttyCursorWriter) Fd() uintptr                { return w.f.Fd() }

// terminalWriter is what Bubble Tea writes to.
type terminalWriter interface {
	io.Writer
	osc52(string)
}

func newCursorWriter(out io.Writer, pos *cursorPos) terminalWriter {
	w := &cursorWriter{out: out, pos: pos}
	if f, ok := out.(file); ok {
		return ttyCursorWriter{w, f}
	}
	return w
}

// osc52 asks the terminal to put s on the clipboard. Terminals that do not
// allow it ignore the sequence.
func (w *cursorWriter) osc52(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = io.WriteString(w.out, "\x1b]52;c;"+base64.StdEncoding.EncodeToString([]byte(s))+"\x07")
}
