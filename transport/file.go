// file.go: the receive-only binding over newline-delimited JSON: a file,
// standard input, or a capture recording.

package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// fileBufSize is the read buffer of a file Conn; longer lines are gathered in
// pieces up to the line limit.
const fileBufSize = 64 << 10

// FileOptions configures OpenFileOptions and NewNDJSONConn. The zero value is
// usable.
type FileOptions struct {
	// MaxLineBytes bounds one line; longer lines are skipped without being
	// kept in memory and reported to OnDiagnostic. Zero means
	// DefaultMaxFrameBytes.
	MaxLineBytes int
	// OnStatus, if not nil, hears StatusConnected when reading starts and
	// StatusClosed at the end. StatusClosed comes from the Recv that returns
	// the end, so after every message of the input has been taken: a status
	// line never overtakes the last events. It must not block.
	OnStatus StatusFunc
	// OnDiagnostic, if not nil, is told in plain words about lines that were
	// skipped. Same calling rules as OnStatus.
	OnDiagnostic func(msg string)
	// InBand, when set, makes Recv return StatusConnected, StatusClosed
	// and the skipped lines as frames with a Note, in their place among
	// the messages (see Note); the callbacks are then not called.
	InBand bool
}

// OpenFile opens a newline-delimited JSON file ("-" is standard input) as a
// receive-only Conn with default options. See OpenFileOptions.
func OpenFile(path string) (Conn, error) {
	return OpenFileOptions(path, FileOptions{})
}

// OpenFileOptions opens path ("-" is standard input) as a receive-only Conn
// reading one message per line; see NewNDJSONConn for the line rules. Close
// closes the file; standard input is left open, and the reader goroutine
// then stays blocked in its read until the next line or the end of input.
func OpenFileOptions(path string, opts FileOptions) (Conn, error) {
	if path == "-" {
		return NewNDJSONConn(struct{ io.Reader }{os.Stdin}, opts), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transport: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("transport: %s is a directory, not a file of messages", path)
	}
	return NewNDJSONConn(f, opts), nil
}

// NewNDJSONConn returns a receive-only Conn reading messages from r, one per
// line, starting a goroutine that reads ahead. Close closes r if it is an
// io.Closer.
//
// Blank lines are skipped and CRLF endings accepted. A line whose first
// non-space byte is '[' is a capture record [t, dir, msg]: the msg of
// received ("i") records is delivered, sent ("o") records and transport notes
// are skipped. A first line holding a capture header {"aaep_capture":…} is
// skipped. Any other line is delivered as it is, for the decoder to judge.
// Recv returns io.EOF at the end of r; Send returns ErrNoBackChannel.
func NewNDJSONConn(r io.Reader, opts FileOptions) Conn {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxFrameBytes
	}
	c := &fileConn{o: opts, src: r, pump: newPump(opts.InBand)}
	go c.run()
	return c
}

type fileConn struct {
	o      FileOptions
	src    io.Reader
	ending sync.Once // StatusClosed is said once, by the Recv that returns the end
	*pump
}

// Recv implements Conn. The Recv that returns the end of the input says
// StatusClosed, after every frame before it was taken.
func (c *fileConn) Recv(ctx context.Context) (Frame, error) {
	f, err := c.pump.recv(ctx)
	if err != nil && ctx.Err() == nil && c.o.OnStatus != nil && !c.o.InBand {
		c.ending.Do(func() { c.o.OnStatus(StatusClosed, endWords(err)) })
	}
	return f, err
}

// endWords says why the input ended.
func endWords(err error) string {
	switch {
	case errors.Is(err, io.EOF):
		return "End of the input."
	case errors.Is(err, ErrClosed):
		return ""
	}
	return "Reading failed: " + err.Error()
}

// Send implements Conn; a file has no back channel.
func (c *fileConn) Send(context.Context, []byte) error {
	if c.pump.closed.Load() {
		return ErrClosed
	}
	return ErrNoBackChannel
}

// Close implements Conn.
func (c *fileConn) Close() error {
	if c.pump.close() {
		if cl, ok := c.src.(io.Closer); ok {
			return cl.Close()
		}
	}
	return nil
}

func (c *fileConn) run() {
	c.pump.tell(Note{Status: StatusConnected}, c.o.OnStatus, c.o.OnDiagnostic)
	err := c.read()
	switch {
	case c.pump.closed.Load():
		err = ErrClosed
	case err == nil:
		err = io.EOF
	}
	if c.o.InBand && err != ErrClosed {
		// In band, the end is said after the last line, by the queue.
		c.pump.tell(Note{Status: StatusClosed, Text: endWords(err)}, nil, nil)
	}
	c.pump.finish(err, reasonOf(err))
}

// read delivers the lines of the input; nil means the input ended.
func (c *fileConn) read() error {
	br := bufio.NewReaderSize(c.src, fileBufSize)
	var (
		long    []byte // a line longer than the buffer, gathered
		skip    bool   // the current line passed the limit
		seen    int64  // bytes of a skipped line so far
		lineNo  int
		started bool // a non-blank line was seen
	)
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// +1: the line may still end with CR LF.
			if !skip && len(long)+len(chunk) > c.o.MaxLineBytes+1 {
				skip, seen, long = true, int64(len(long)), nil
			}
			if skip {
				seen += int64(len(chunk))
			} else {
				long = append(long, chunk...)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err != nil && len(chunk) == 0 && long == nil && !skip {
			return nil
		}
		lineNo++
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		end := len(line) - len(bytes.TrimRight(line, "\r\n"))
		line = line[:len(line)-end]
		size := int64(len(line))
		if skip {
			size = seen + int64(len(chunk)-end)
		}
		if skip || size > int64(c.o.MaxLineBytes) {
			c.diag(fmt.Sprintf("Skipped line %d: %d bytes is longer than the limit of %d.", lineNo, size, c.o.MaxLineBytes))
		} else if !c.line(line, lineNo, &started) {
			return nil
		}
		skip, seen = false, 0
		if err != nil { // io.EOF after a last line without ending
			return nil
		}
	}
}

// line handles one line; false means the connection was closed.
func (c *fileConn) line(line []byte, n int, started *bool) bool {
	trimmed := bytes.TrimLeft(line, " \t")
	if len(bytes.TrimSpace(trimmed)) == 0 {
		return true
	}
	first := !*started
	*started = true
	var msg []byte
	switch trimmed[0] {
	case '[':
		m, ok, why := captureRecord(trimmed)
		if why != "" {
			c.diag(fmt.Sprintf("Skipped line %d: %s.", n, why))
		}
		if !ok {
			return true
		}
		msg = m
	case '{':
		if first && isCaptureHeader(trimmed) {
			return true
		}
		msg = bytes.Clone(line)
	default:
		msg = bytes.Clone(line)
	}
	return c.put(Frame{Data: msg, At: time.Now()})
}

// captureRecord reads [t, dir, msg]. ok reports a received message to
// deliver; why, when not empty, says what was wrong with the record.
func captureRecord(line []byte) (msg []byte, ok bool, why string) {
	var rec []json.RawMessage
	if err := json.Unmarshal(line, &rec); err != nil || len(rec) != 3 && len(rec) != 4 { // 4: a version-2 record names its connection
		return nil, false, "not a capture record [time, direction, message]"
	}
	var dir string
	if json.Unmarshal(rec[1], &dir) != nil {
		return nil, false, "the direction of a capture record is not a string"
	}
	if dir != "i" {
		return nil, false, "" // a sent message
	}
	m := bytes.TrimSpace(rec[2])
	if len(m) == 0 || m[0] != '{' {
		return nil, false, "the message of a capture record is not an object"
	}
	var note struct {
		Type      json.RawMessage `json:"type"`
		Transport json.RawMessage `json:"transport"`
	}
	if json.Unmarshal(m, &note) == nil && note.Transport != nil && note.Type == nil {
		return nil, false, "" // a connect or disconnect note
	}
	return bytes.Clone(m), true, ""
}

// isCaptureHeader reports whether line is a capture file's first line.
func isCaptureHeader(line []byte) bool {
	if !bytes.Contains(line, []byte(`"aaep_capture"`)) {
		return false
	}
	var h struct {
		V json.RawMessage `json:"aaep_capture"`
	}
	return json.Unmarshal(line, &h) == nil && h.V != nil
}

func (c *fileConn) diag(msg string) {
	c.pump.tell(Note{Problem: true, Text: msg}, c.o.OnStatus, c.o.OnDiagnostic)
}
