// lines.go: the subscriber's own output, shown only line by line and
// sanitized.

package main

import (
	"bytes"
	"sync"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/internal/term"
)

// maxShownLine is the longest piece of a subscriber's line shown at once;
// a longer line is shown in pieces, each a line of its own.
const maxShownLine = 4096

// childLines is an io.Writer for a child process's output: it shows each
// complete line on standard error through term.IO, which sanitizes it, after
// a prefix saying whose words they are. No byte the child writes reaches the
// terminal as it is: not an escape sequence, not a line of ours.
type childLines struct {
	io     *term.IO
	prefix string
	mu     sync.Mutex // stdout and stderr may be copied at once
	buf    []byte
}

func (c *childLines) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			if len(c.buf) >= maxShownLine {
				n := pieceLen(c.buf)
				c.show(c.buf[:n])
				c.buf = append(c.buf[:0], c.buf[n:]...)
				continue
			}
			return len(p), nil
		}
		line := c.buf[:i]
		for len(line) > maxShownLine {
			n := pieceLen(line)
			c.show(line[:n])
			line = line[n:]
		}
		c.show(line)
		c.buf = append(c.buf[:0], c.buf[i+1:]...)
	}
}

// pieceLen is how much of b, longer than maxShownLine, to show as one
// piece: at most maxShownLine bytes, ending where a character begins, so
// no character is cut in two (and shown as two replacement characters).
func pieceLen(b []byte) int {
	for n := maxShownLine; n > maxShownLine-utf8.UTFMax; n-- {
		if utf8.RuneStart(b[n]) {
			return n
		}
	}
	return maxShownLine // not UTF-8 there: the sanitizer replaces it anyway
}

// Flush shows what is left of a last line without its newline.
func (c *childLines) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buf) > 0 {
		c.show(c.buf)
		c.buf = c.buf[:0]
	}
}

func (c *childLines) show(line []byte) {
	c.io.Eprintf("%s%s\n", c.prefix, string(bytes.TrimSuffix(line, []byte("\r"))))
}
