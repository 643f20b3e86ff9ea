// writer.go: writing captures, one whole line per write.

package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// WriterOptions configures a Writer. The zero value writes an unredacted
// .aaep capture.
type WriterOptions struct {
	// JSONL writes plain events, one per line, with no header, no times and
	// no sent messages, handshake messages, replies or transport notes: the
	// format other AAEP tools read.
	JSONL bool
	// Redactor, if not nil, redacts every message before it is written.
	Redactor *Redactor
}

// Writer writes a capture. Each record is written to the underlying writer
// with a single Write call holding one whole line, so a crash loses at most
// the line being written. It is safe for concurrent use.
type Writer struct {
	mu    sync.Mutex // guards all below
	w     io.Writer
	o     WriterOptions
	start time.Time
	buf   []byte
	err   error // sticky: the first write error
	n     int   // records written
	lastT float64
	conns map[string]bool // the connection IDs of a version-2 capture
}

// NewWriter starts a capture on w at start (which should carry a monotonic
// clock reading, as time.Now does) and writes the header, unless
// opts.JSONL. h.Capture, h.StartedAt and h.Redacted are filled in: a header
// naming connections makes a version-2 capture, whose records are written
// with WriteFrom and NoteFrom; one naming none a version-1 capture.
func NewWriter(w io.Writer, h Header, start time.Time, opts WriterOptions) (*Writer, error) {
	cw := &Writer{w: w, o: opts, start: start}
	if len(h.Connections) > 0 {
		cw.conns = map[string]bool{}
		for _, c := range h.Connections {
			if !ValidConnID(c.ID) || cw.conns[c.ID] {
				return nil, fmt.Errorf("capture: the connection ID %q is not valid or not unique", c.ID)
			}
			cw.conns[c.ID] = true
		}
	}
	if opts.JSONL {
		return cw, nil
	}
	h.Capture = FormatVersion1
	if cw.conns != nil {
		h.Capture = FormatVersion
	}
	h.StartedAt = start.UTC().Format(time.RFC3339Nano)
	h.Redacted = opts.Redactor != nil
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("capture: encode the header: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("capture: write the header: %w", err)
	}
	return cw, nil
}

// Write records msg, received (In) or sent (Out) at time at. A msg that is
// not JSON is kept as a JSON string (in JSONL form it is left out). It
// returns the first error the underlying writer gave, for good.
func (w *Writer) Write(dir Dir, msg []byte, at time.Time) error {
	return w.WriteFrom("", dir, msg, at)
}

// WriteFrom is Write for the connection conn of a version-2 capture ("" in
// version 1). A connection the header did not name is an error.
func (w *Writer) WriteFrom(conn string, dir Dir, msg []byte, at time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if (conn == "") != (w.conns == nil) || conn != "" && !w.conns[conn] {
		return fmt.Errorf("capture: record %d names the connection %q, which the header does not", w.n+1, conn)
	}
	b := w.buf[:0]
	if w.o.JSONL {
		// Plain event JSONL holds events only: readers of it refuse a
		// handshake message or reply, which only .aaep keeps.
		if dir != In || protocol.KindOf(protocol.PeekType(msg)) != protocol.KindEvent {
			return nil
		}
		var ok bool
		if b, ok = appendCompact(b, msg, w.o.Redactor); !ok {
			return nil
		}
	} else {
		// Never back in time: a note from the transport's goroutine may be
		// written before frames it received earlier are.
		t := max(at.Sub(w.start).Seconds(), w.lastT)
		w.lastT = t
		b = append(b, '[')
		b = strconv.AppendFloat(b, t, 'f', 6, 64)
		b = append(b, `,"`...)
		b = append(b, dir...)
		b = append(b, `",`...)
		var ok bool
		if b, ok = appendCompact(b, msg, w.o.Redactor); !ok {
			text, _ := json.Marshal(string(msg)) // a string always marshals
			b = append(b, text...)
		}
		if conn != "" {
			b = append(b, `,"`...)
			b = append(b, conn...) // a valid ID needs no escaping
			b = append(b, '"')
		}
		b = append(b, ']')
	}
	b = append(b, '\n')
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("capture: write record %d: %w", w.n+1, err)
		return w.err
	}
	w.n++
	return nil
}

// Note records a transport note, such as a connect or disconnect, in .aaep
// form; JSONL has no place for it.
func (w *Writer) Note(transport, detail string, at time.Time) error {
	return w.NoteFrom("", transport, detail, at)
}

// NoteFrom is Note for the connection conn of a version-2 capture.
func (w *Writer) NoteFrom(conn, transport, detail string, at time.Time) error {
	if w.o.JSONL {
		return nil
	}
	b, err := json.Marshal(struct {
		Transport string `json:"transport"`
		Detail    string `json:"detail,omitempty"`
	}{transport, detail})
	if err != nil {
		return fmt.Errorf("capture: encode a note: %w", err)
	}
	return w.WriteFrom(conn, In, b, at)
}

// Count returns how many records were written.
func (w *Writer) Count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// appendCompact appends msg, a JSON object, on one line, redacted when r is
// not nil; false means msg is not a JSON object and nothing was appended.
func appendCompact(b, msg []byte, r *Redactor) ([]byte, bool) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '{' {
		return b, false
	}
	n := len(b)
	if bytes.IndexByte(msg, '\n') < 0 && bytes.IndexByte(msg, '\r') < 0 {
		if !json.Valid(msg) {
			return b, false
		}
		b = append(b, msg...)
	} else {
		buf := bytes.NewBuffer(b)
		if json.Compact(buf, msg) != nil {
			return b[:n], false
		}
		b = buf.Bytes()
	}
	if r != nil {
		r.redactInPlace(b[n:])
	}
	return b, true
}
