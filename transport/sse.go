// sse.go: an incremental parser for the text/event-stream format.

package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
	"unsafe"
)

// DefaultMaxFrameBytes is the largest message a Conn accepts when its options
// leave the limit at zero: 1 MiB, the size the AAEP transport chapter asks
// every binding to carry.
const DefaultMaxFrameBytes = 1 << 20

// sseBufSize is the read buffer of an SSEReader. Lines longer than this are
// handled in pieces, so it bounds memory, not line length.
const sseBufSize = 64 << 10

// maxCommentBytes is how much of one comment line reaches OnComment.
const maxCommentBytes = 4 << 10

// SSEEvent is one event dispatched by an SSEReader.
type SSEEvent struct {
	// Type is the value of the event's "event:" field; empty when the event
	// had none (the format's default type, "message").
	Type string
	// Data is the event's data: the values of its "data:" lines joined by
	// "\n". It aliases the reader's buffer and is valid only until the next
	// call to Next; copy it to keep it. Bytes are passed through untouched,
	// invalid UTF-8 included.
	Data []byte
	// ID is the stream's last event ID when the event was dispatched: the
	// value of the most recent "id:" field, from this event or an earlier one.
	ID string
}

// SSEReader parses a text/event-stream incrementally from an io.Reader.
//
// It accepts LF, CRLF and lone CR line endings, a byte order mark at the
// start, "field:value" and "field: value", comments, and ignores unknown
// fields, as the format requires. An "id:" whose value contains NUL is
// ignored; a "retry:" whose value is not all ASCII digits is ignored and
// reported to OnDiagnostic.
//
// Memory is bounded: the reader holds one 64 KiB buffer plus at most
// MaxFrameBytes of event data. A longer event is read to its end without
// being kept, and Next reports it as a *FrameTooLargeError.
//
// Set the exported fields before the first call to Next. An SSEReader is not
// safe for concurrent use.
type SSEReader struct {
	// MaxFrameBytes bounds the data of one event. Zero means
	// DefaultMaxFrameBytes.
	MaxFrameBytes int
	// OnComment, if not nil, is called with the text of every comment line
	// (the bytes after ':' and one optional space, at most 4 KiB), for
	// example a producer's heartbeat. The slice is valid only during the
	// call.
	OnComment func(text []byte)
	// OnDiagnostic, if not nil, is told in plain words about input that was
	// ignored although it looked meant (a malformed retry, an id with NUL).
	OnDiagnostic func(msg string)

	// beforeRead, if not nil, is called before every read from src, which
	// may wait: sseConn queues the frames it holds.
	beforeRead func()

	src io.Reader
	buf []byte
	r   int // start of unread bytes in buf
	w   int // end of valid bytes in buf
	scn int // bytes from r known to hold no line ending
	// crAt is where the first CR of buf[r:w] is, when hasCR: each byte is
	// searched for CR once, as it is read (most streams hold none), not
	// once more line by line.
	crAt  int
	hasCR bool
	err   error // sticky error from src
	// reads counts the reads from src that returned bytes: frames
	// completed by the same read arrived at the same moment.
	reads int

	started bool // the byte order mark check is done
	skipLF  bool // the last line ended with CR: drop a directly following LF
	final   error

	// own makes each event's Data the caller's to keep: a new slice an
	// event, made to its size, instead of one buffer the caller copies
	// from (sseConn: one copy of every frame fewer). It is never a slice
	// of the read buffer: a string the caller keeps from an event keeps
	// that event's bytes alive, not a whole buffer of the stream.
	own bool
	// bufSize, if not zero, is the size of the read buffer instead of
	// sseBufSize (tests: bytes moved and lines cut in pieces often).
	bufSize int
	// slow, if set, reads every line through readLine and fieldLine,
	// never lines (tests: the two ways agree).
	slow bool

	// The event being built.
	data      []byte
	evType    string
	typeCache string
	ids       []byte // the block ids are cut from (idString)
	idBuf     string // the last event ID buffer: the latest valid "id:"
	lastID    string // idBuf as of the last blank line
	pending   bool   // a field line was seen since the last dispatch
	oversize  bool   // the event passed the limit; its data is being dropped
	seen      int64  // data bytes of an oversized event
	scratch   []byte
	retry     time.Duration
	hasRetry  bool

	// A line longer than the buffer, arriving in pieces.
	cont      bool
	contField sseField
	contSpace bool // drop one leading space from the next piece
}

type sseField uint8

const (
	fieldIgnore sseField = iota
	fieldData
	fieldEvent
	fieldID
	fieldRetry
	fieldComment
)

// NewSSEReader returns a reader that parses the stream from src.
func NewSSEReader(src io.Reader) *SSEReader {
	return &SSEReader{src: src}
}

// SetLastEventID sets the last event ID, as when a reader takes over from an
// earlier connection of the same stream.
func (r *SSEReader) SetLastEventID(id string) { r.idBuf, r.lastID = id, id }

// LastEventID returns the ID to resume the stream from: the value of the most
// recent valid "id:" field of a complete event (one ended by a blank line,
// whether it had data or not), or what SetLastEventID set. The id of an event
// cut off by the end of the stream does not count.
func (r *SSEReader) LastEventID() string { return r.lastID }

// Retry returns the reconnection delay the stream asked for with "retry:",
// and whether it asked at all.
func (r *SSEReader) Retry() (time.Duration, bool) { return r.retry, r.hasRetry }

// Next returns the next event of the stream.
//
// At the end of the stream it returns io.EOF, or io.ErrUnexpectedEOF when the
// stream ended inside an event (the partial event is discarded). A
// *FrameTooLargeError means one event was skipped; calling Next again goes on
// with the following event. Any other error comes from the underlying reader
// and is returned again by every later call.
func (r *SSEReader) Next() (SSEEvent, error) {
	var ev SSEEvent
	err := r.next(&ev)
	return ev, err
}

// next is Next, the event written in *ev (left as it was when err is
// not nil), not returned through lines and dispatch.
func (r *SSEReader) next(ev *SSEEvent) error {
	if r.final != nil {
		return r.final
	}
	if r.buf == nil {
		r.buf = make([]byte, r.size())
	}
	if !r.started {
		r.skipBOM()
	}
	for {
		if !r.cont && !r.skipLF && !r.slow {
			// The lines a stream is mostly made of, whole in the
			// buffer, read in one loop; the first line it leaves is
			// read below.
			if ok, err := r.lines(ev); ok || err != nil {
				return err
			}
		}
		line, complete, err := r.readLine()
		if err != nil {
			return r.end(line, err)
		}
		if r.cont {
			r.piece(line, complete)
			continue
		}
		if len(line) == 0 && complete {
			if ok, err := r.dispatch(ev); ok || err != nil {
				return err
			}
			continue
		}
		r.fieldLine(line, complete)
	}
}

// limit returns the data limit in force.
func (r *SSEReader) limit() int {
	if r.MaxFrameBytes > 0 {
		return r.MaxFrameBytes
	}
	return DefaultMaxFrameBytes
}

// skipBOM drops a UTF-8 byte order mark at the very start of the stream.
// Read errors are left for readLine to report.
func (r *SSEReader) skipBOM() {
	for r.w-r.r < 3 && r.err == nil {
		r.fill()
	}
	if bytes.HasPrefix(r.buf[r.r:r.w], []byte("\xef\xbb\xbf")) {
		r.r += 3
	}
	r.started = true
}

// size is the size of the read buffer.
func (r *SSEReader) size() int {
	if r.bufSize > 0 {
		return r.bufSize
	}
	return sseBufSize
}

// fill reads more bytes into the buffer, moving unread bytes to its
// front. The unread bytes hold no CR (readLine reads on only for want of
// a line ending), so none is moved.
func (r *SSEReader) fill() {
	if r.r > 0 {
		copy(r.buf, r.buf[r.r:r.w])
		r.w -= r.r
		r.r = 0
	}
	for i := 0; i < 100; i++ {
		if r.beforeRead != nil {
			r.beforeRead()
		}
		n, err := r.src.Read(r.buf[r.w:])
		if n > 0 && !r.hasCR {
			if i := bytes.IndexByte(r.buf[r.w:r.w+n], '\r'); i >= 0 {
				r.crAt, r.hasCR = r.w+i, true
			}
		}
		r.w += n
		if n > 0 {
			r.reads++
		}
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// readLine returns the next line without its ending. complete is false when
// the line is only a piece of a line longer than the buffer (more pieces
// follow), or when err is not nil (line then holds an unterminated last
// line). The slice is valid until the next call.
func (r *SSEReader) readLine() (line []byte, complete bool, err error) {
	for {
		if r.skipLF && r.r < r.w {
			if r.buf[r.r] == '\n' {
				r.r++
			}
			r.skipLF = false
		}
		avail := r.buf[r.r:r.w]
		if len(avail) > 0 && (avail[0] == '\n' || avail[0] == '\r') {
			// A blank line, one an event: found without searching.
			r.skipLF = avail[0] == '\r'
			r.r++
			r.scn = 0
			if r.skipLF {
				r.nextCR()
			}
			return avail[:0], true, nil
		}
		n := bytes.IndexByte(avail[r.scn:], '\n')
		if r.hasCR && (n < 0 || r.crAt-r.r < r.scn+n) {
			i := r.crAt - r.r
			r.skipLF = true
			r.r += i + 1
			r.scn = 0
			r.nextCR()
			return avail[:i], true, nil
		}
		if n >= 0 {
			i := r.scn + n
			r.skipLF = false
			r.r += i + 1
			r.scn = 0
			return avail[:i], true, nil
		}
		r.scn = len(avail)
		if r.err != nil {
			r.r = r.w
			r.scn = 0
			return avail, false, r.err
		}
		if r.r == 0 && r.w == len(r.buf) {
			r.r = r.w
			r.scn = 0
			return avail, false, nil
		}
		r.fill()
	}
}

// lines reads the lines that are whole in the buffer and ended by LF
// alone, as long as they are blank lines or "data:", "id:" and "event:"
// lines, as readLine and fieldLine would read them, without calling
// them for each line: it returns the event a blank line ends, as
// dispatch does, in *ev. It stops at the first line it does not read so
// (a comment, another field, a CR, a line not whole in the buffer),
// leaving it to readLine; ok and err are then false and nil.
func (r *SSEReader) lines(ev *SSEEvent) (bool, error) {
	// The buffer and the place in it are kept here, in registers, and
	// r.r set as each line is read.
	buf, p, scn := r.buf[:r.w], r.r, r.scn
	for p < len(buf) {
		c := buf[p]
		if c == '\n' {
			p++
			r.r, r.scn, scn = p, 0, 0
			if ok, err := r.dispatch(ev); ok || err != nil {
				return ok, err
			}
			continue
		}
		n := bytes.IndexByte(buf[p+scn:], '\n')
		if n < 0 {
			if !r.hasCR {
				r.scn = len(buf) - p // readLine need not search them again
			}
			return false, nil
		}
		end := p + scn + n // the LF
		if r.hasCR && r.crAt <= end {
			return false, nil // a CR ends the line, or it is blank
		}
		line := buf[p:end]
		switch {
		case c == 'd' && len(line) >= 5 && string(line[:5]) == "data:":
			v := p + 5
			if len(line) > 5 && line[5] == ' ' {
				v++
			}
			// With its LF, which ends it in the buffer: the data's
			// newline is copied with it.
			r.dataLine(buf[v : end+1])
		case c == 'i' && len(line) >= 3 && string(line[:3]) == "id:":
			v := line[3:]
			if len(v) > 0 && v[0] == ' ' {
				v = v[1:]
			}
			r.setField(fieldID, v)
		case c == 'e' && len(line) >= 6 && string(line[:6]) == "event:":
			v := line[6:]
			if len(v) > 0 && v[0] == ' ' {
				v = v[1:]
			}
			r.setField(fieldEvent, v)
		default:
			return false, nil
		}
		p = end + 1
		r.pending = true
		r.r, r.scn, scn = p, 0, 0
	}
	return false, nil
}

// nextCR finds the first CR of buf[r:w], now that the reader has gone
// past the one before.
func (r *SSEReader) nextCR() {
	r.crAt = bytes.IndexByte(r.buf[r.r:r.w], '\r')
	r.hasCR = r.crAt >= 0
	r.crAt += r.r
}

// fieldLine handles a line that is not blank: a whole line, or the first piece
// of a long one.
func (r *SSEReader) fieldLine(line []byte, complete bool) {
	var (
		f     sseField
		value []byte
	)
	colon := -1
	if complete {
		f, value, colon = knownField(line)
	}
	if colon < 0 {
		colon = bytes.IndexByte(line, ':')
		switch {
		case colon == 0:
			f, value = fieldComment, line[1:]
		case colon < 0 && !complete:
			// A field name longer than the buffer names no field we know.
			f = fieldIgnore
		default:
			name := line
			if colon > 0 {
				name, value = line[:colon], line[colon+1:]
			}
			f = fieldOf(name)
		}
	}
	if f != fieldComment {
		r.pending = true
	}
	spaceNext := false
	if len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	} else if colon >= 0 && colon == len(line)-1 && !complete {
		spaceNext = true
	}
	if complete {
		switch f {
		case fieldData:
			r.appendData(value)
			r.appendNewline()
		case fieldComment:
			r.comment(value)
		case fieldIgnore:
		default:
			r.setField(f, value)
		}
		return
	}
	r.cont, r.contField, r.contSpace = true, f, spaceNext
	r.scratch = r.scratch[:0]
	r.piece(value, false)
}

// piece handles part of a long line; complete marks its last piece.
func (r *SSEReader) piece(p []byte, complete bool) {
	if r.contSpace && len(p) > 0 {
		if p[0] == ' ' {
			p = p[1:]
		}
		r.contSpace = false
	}
	switch r.contField {
	case fieldData:
		r.appendData(p)
	case fieldComment:
		if room := maxCommentBytes - len(r.scratch); room > 0 {
			r.scratch = append(r.scratch, p[:min(room, len(p))]...)
		}
	case fieldEvent, fieldID, fieldRetry:
		// Counted against the limit like data, so a huge id cannot grow
		// memory either.
		if r.oversize || len(r.scratch)+len(r.data)+len(p) > r.limit() {
			r.markOversize(int64(len(p)))
			r.scratch = r.scratch[:0]
		} else {
			r.scratch = append(r.scratch, p...)
		}
	}
	if !complete {
		return
	}
	r.cont = false
	switch r.contField {
	case fieldData:
		r.appendNewline()
	case fieldComment:
		r.comment(r.scratch)
	case fieldEvent, fieldID, fieldRetry:
		if !r.oversize {
			r.setField(r.contField, r.scratch)
		}
	}
	r.scratch = r.scratch[:0]
	if cap(r.scratch) > sseBufSize {
		r.scratch = nil
	}
}

// knownField recognizes the lines a stream is mostly made of, "data:",
// "id:" and "event:", by their first bytes, so that their colon is not
// searched for: it returns the field, its value (the bytes after the
// colon) and where the colon is; -1 for any other line.
func knownField(line []byte) (f sseField, value []byte, colon int) {
	switch {
	case len(line) >= 5 && string(line[:5]) == "data:":
		return fieldData, line[5:], 4
	case len(line) >= 3 && string(line[:3]) == "id:":
		return fieldID, line[3:], 2
	case len(line) >= 6 && string(line[:6]) == "event:":
		return fieldEvent, line[6:], 5
	}
	return fieldIgnore, nil, -1
}

func fieldOf(name []byte) sseField {
	switch string(name) { // no allocation: the compiler compares in place
	case "data":
		return fieldData
	case "event":
		return fieldEvent
	case "id":
		return fieldID
	case "retry":
		return fieldRetry
	}
	return fieldIgnore
}

func (r *SSEReader) setField(f sseField, value []byte) {
	switch f {
	case fieldEvent:
		if string(value) != r.typeCache {
			r.typeCache = string(value) // most streams repeat one type
		}
		r.evType = r.typeCache
	case fieldID:
		if bytes.IndexByte(value, 0) >= 0 {
			r.diag("ignored an event id that contains a NUL byte")
			return
		}
		// Cut without comparing with the last: most streams give every
		// event a new id, of the same length as the last and alike up to
		// its last bytes, so the comparison cost more than the copy.
		r.idBuf = r.idString(value)
	case fieldRetry:
		d, ok := parseRetry(value)
		if !ok {
			r.diag(fmt.Sprintf("ignored a malformed retry value %q", truncate(value, 40)))
			return
		}
		r.retry, r.hasRetry = d, true
	}
}

// idBlock is the size of the blocks the ids of a stream are cut from.
const idBlock = 1 << 10

// idString returns v as a string. Ids are cut from a block of the
// reader's, allocated once for many ids (most streams give every event a
// new one), and never written again once cut: a string keeps its bytes.
// A kept id keeps its block, at most idBlock bytes, alive; a long id is a
// string of its own.
func (r *SSEReader) idString(v []byte) string {
	if len(v) == 0 || len(v) > idBlock/16 {
		return string(v)
	}
	if cap(r.ids)-len(r.ids) < len(v) {
		r.ids = make([]byte, 0, idBlock)
	}
	start := len(r.ids)
	r.ids = append(r.ids, v...)
	return unsafe.String(&r.ids[start], len(v))
}

// parseRetry reads a retry value: ASCII digits only, in milliseconds.
func parseRetry(v []byte) (time.Duration, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const maxMS = int64(24 * time.Hour / time.Millisecond)
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= maxMS {
			ms = ms*10 + int64(c-'0')
		}
	}
	return time.Duration(min(ms, maxMS)) * time.Millisecond, true
}

func (r *SSEReader) appendData(p []byte) {
	if r.oversize {
		r.seen += int64(len(p))
		return
	}
	if len(r.data)+len(p) > r.limit() {
		r.markOversize(int64(len(p)))
		return
	}
	if r.data == nil && r.own {
		// The usual one line and its newline.
		r.data = ownData(p, len(p)+1)[:len(p)]
		return
	}
	r.data = append(r.data, p...)
}

// dataLine adds the value of a data line and its newline to the event's
// data: p is the value and the LF that ends the line in the buffer,
// which is copied as the newline.
func (r *SSEReader) dataLine(p []byte) {
	if r.data == nil && r.own && !r.oversize && len(p)-1 <= r.limit() {
		r.data = ownData(p, len(p))
		return
	}
	r.appendData(p[:len(p)-1])
	r.appendNewline()
}

// ownData returns a new slice of size bytes for the first data of an
// event whose data is the caller's (own), p copied to its start. Made
// and copied in one step (the compiler's make-and-copy), the bytes
// copied are not cleared first: a flood's frames are most of the bytes
// the listener allocates.
func ownData(p []byte, size int) []byte {
	d := make([]byte, size)
	copy(d, p)
	return d
}

func (r *SSEReader) appendNewline() {
	if r.oversize {
		r.seen++
		return
	}
	r.data = append(r.data, '\n')
}

// markOversize starts dropping the current event; n more bytes were just seen.
func (r *SSEReader) markOversize(n int64) {
	if !r.oversize {
		r.oversize = true
		r.seen = int64(len(r.data))
		r.data = r.data[:0]
		if cap(r.data) > 2*sseBufSize {
			r.data = nil // do not keep a near-limit buffer for small events
		}
	}
	r.seen += n
}

func (r *SSEReader) comment(text []byte) {
	if r.OnComment != nil {
		r.OnComment(text[:min(len(text), maxCommentBytes)])
	}
}

func (r *SSEReader) diag(msg string) {
	if r.OnDiagnostic != nil {
		r.OnDiagnostic(msg)
	}
}

// dispatch ends the current event at a blank line. ok reports an event to
// return, written in *ev; err a skipped one.
func (r *SSEReader) dispatch(ev *SSEEvent) (ok bool, err error) {
	r.lastID = r.idBuf
	typ := r.evType
	r.evType, r.pending = "", false
	if r.oversize {
		// seen counts the line ending after the last data line too.
		err := &FrameTooLargeError{Size: max(r.seen-1, 0), Limit: r.limit(), ID: r.lastID}
		r.oversize, r.seen = false, 0
		r.data = r.data[:0]
		return false, err
	}
	if len(r.data) == 0 {
		return false, nil
	}
	ev.Type, ev.Data, ev.ID = typ, r.data[:len(r.data)-1], r.lastID
	if r.own {
		r.data = nil // ev.Data is the caller's
	} else {
		r.data = r.data[:0] // ev.Data stays valid until the next append
	}
	return true, nil
}

// end turns the source's final error into the reader's final answer. rest is
// an unterminated last line, which the format discards.
func (r *SSEReader) end(rest []byte, err error) error {
	mid := r.pending || r.oversize || (r.cont && r.contField != fieldComment) ||
		(len(rest) > 0 && rest[0] != ':' && !r.cont)
	r.data, r.scratch = nil, nil
	if errors.Is(err, io.EOF) {
		if mid {
			err = io.ErrUnexpectedEOF
		} else {
			err = io.EOF
		}
	}
	r.final = err
	return err
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
