package conform

// This file splits a child process's output into lines, so that it can be
// shown line by line and sanitized: not an escape sequence, not a line
// that looks like ours.

import (
	"bytes"
	"sync"
	"unicode/utf8"
)

// MaxShownLine is the longest piece of a line Lines shows at once; a
// longer line is shown in pieces, each a line of its own.
const MaxShownLine = 4096

// Lines is an io.Writer for a child process's output: it hands Show each
// complete line, without its line end, for whoever shows it to sanitize
// and mark as the child's words. Write and Flush may be called from several
// goroutines at once (standard output and standard error copied together).
type Lines struct {
	Show func(line string)

	mu  sync.Mutex
	buf []byte
}

func (c *Lines) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			if len(c.buf) >= MaxShownLine {
				n := pieceLen(c.buf)
				c.show(c.buf[:n])
				c.buf = append(c.buf[:0], c.buf[n:]...)
				continue
			}
			return len(p), nil
		}
		line := c.buf[:i]
		for len(line) > MaxShownLine {
			n := pieceLen(line)
			c.show(line[:n])
			line = line[n:]
		}
		c.show(line)
		c.buf = append(c.buf[:0], c.buf[i+1:]...)
	}
}

// pieceLen is how much of b, longer than MaxShownLine, to show as one
// piece: at most MaxShownLine bytes, ending where a character begins, so
// no character is cut in two (and shown as two replacement characters).
func pieceLen(b []byte) int {
	for n := MaxShownLine; n > MaxShownLine-utf8.UTFMax; n-- {
		if utf8.RuneStart(b[n]) {
			return n
		}
	}
	return MaxShownLine // not UTF-8 there: the sanitizer replaces it anyway
}

// Flush shows what is left of a last line without its newline.
func (c *Lines) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buf) > 0 {
		c.show(c.buf)
		c.buf = c.buf[:0]
	}
}

func (c *Lines) show(line []byte) {
	c.Show(string(bytes.TrimSuffix(line, []byte("\r"))))
}
