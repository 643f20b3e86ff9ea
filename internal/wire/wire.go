// Package wire frames messages on byte streams for the bindings that carry
// them both ways (Unix socket, stdio), and holds the JSON-RPC 2.0 envelope.
//
// Both the transport and the producer packages use it, so the two sides of a
// binding read and write the same bytes.
package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Framing is how messages are cut on a byte stream.
type Framing int

const (
	// FramingUnknown is a Reader's framing before its first message.
	FramingUnknown Framing = iota
	// FramingLines is newline-delimited JSON: one compact message per line.
	FramingLines
	// FramingLength is a 4-byte big-endian length, then that many bytes.
	FramingLength
)

func (f Framing) String() string {
	switch f {
	case FramingLines:
		return "newline-delimited JSON"
	case FramingLength:
		return "length-prefixed"
	}
	return "unknown"
}

// TooLargeError reports a message longer than the limit; it was skipped
// without being kept, and the Reader goes on with the next one.
type TooLargeError struct {
	Size  int64
	Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("wire: skipped a message of %d bytes (the limit is %d)", e.Size, e.Limit)
}

// bufSize is a Reader's buffer; longer lines are gathered in pieces.
const bufSize = 64 << 10

// Reader reads one message at a time. Its framing is fixed at construction
// or, when FramingUnknown, detected from the first byte: a JSON start ('{',
// '[' or white space) means lines, anything else a length prefix.
type Reader struct {
	br      *bufio.Reader
	max     int
	framing Framing
}

// NewReader returns a Reader of messages of at most max bytes.
func NewReader(r io.Reader, framing Framing, max int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, bufSize), max: max, framing: framing}
}

// Framing returns the framing in use; FramingUnknown until detected.
func (r *Reader) Framing() Framing { return r.framing }

// Next returns the next message in a slice of its own. It returns a
// *TooLargeError for a skipped message (not fatal), io.EOF at a clean end,
// and io.ErrUnexpectedEOF when the stream ends inside a length-prefixed
// message. Blank lines are skipped; a last line without a newline counts.
func (r *Reader) Next() ([]byte, error) {
	if r.framing == FramingUnknown {
		b, err := r.br.Peek(1)
		if err != nil {
			return nil, err
		}
		switch b[0] {
		case '{', '[', ' ', '\t', '\r', '\n':
			r.framing = FramingLines
		default:
			r.framing = FramingLength
		}
	}
	if r.framing == FramingLength {
		return r.nextLength()
	}
	return r.nextLine()
}

func (r *Reader) nextLength() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r.br, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if int64(n) > int64(r.max) {
		skipped, err := io.CopyN(io.Discard, r.br, int64(n))
		if err != nil {
			return nil, unexpected(err)
		}
		return nil, &TooLargeError{Size: skipped, Limit: r.max}
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r.br, msg); err != nil {
		return nil, unexpected(err)
	}
	return msg, nil
}

func (r *Reader) nextLine() ([]byte, error) {
	var (
		long []byte // a line longer than the buffer, gathered
		skip bool   // the line passed the limit
		seen int64  // bytes of a skipped line so far
	)
	for {
		chunk, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !skip && len(long)+len(chunk) > r.max+1 { // +1: a CR may end it
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
			return nil, err
		}
		if errors.Is(err, io.EOF) && len(chunk) == 0 && long == nil && !skip {
			return nil, io.EOF
		}
		line := append(long, chunk...) // a copy: chunk points into the buffer
		long = nil
		line = bytes.TrimRight(line, "\r\n")
		size := int64(len(line))
		if skip {
			size += seen
		}
		switch {
		case skip || size > int64(r.max):
			return nil, &TooLargeError{Size: size, Limit: r.max}
		case len(bytes.TrimSpace(line)) == 0:
			if err != nil {
				return nil, io.EOF
			}
			skip, seen = false, 0
			continue
		}
		// A last line without its newline is taken as it is.
		return line, nil
	}
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Append appends msg to dst in the given framing (lines when unknown). A
// message for lines must be one line: JSON holding a newline between its
// tokens is compacted first, and an error is returned for anything else.
func Append(dst []byte, framing Framing, msg []byte) ([]byte, error) {
	if framing == FramingLength {
		if len(msg) > math.MaxUint32 {
			return dst, errors.New("wire: message too long for a length prefix")
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(msg)))
		return append(dst, msg...), nil
	}
	if bytes.ContainsAny(msg, "\r\n") {
		var b bytes.Buffer
		if err := json.Compact(&b, msg); err != nil {
			return dst, fmt.Errorf("wire: a message with a line break is not JSON: %w", err)
		}
		msg = b.Bytes()
	}
	dst = append(dst, msg...)
	return append(dst, '\n'), nil
}
