// reader.go: reading captures, plain JSONL and gzip, recovering what a crash cut short.

package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/protocol"
)

// Kinds of input a Reader recognises.
const (
	KindCapture = "aaep"  // a header line, then [t, dir, msg] records
	KindJSONL   = "jsonl" // one message per line, no header, no times
)

// MaxLineBytes bounds one line of a capture; longer lines are skipped with a diagnostic.
const MaxLineBytes = 4 << 20

// Diagnostic is a problem with the input that did not stop the reading.
type Diagnostic struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
	// Truncated is true for a last line cut short, as a crash or kill of
	// the recorder leaves it.
	Truncated bool `json:"truncated,omitempty"`
}

// maxDiagnostics bounds the diagnostics a Reader keeps; later ones are counted.
const maxDiagnostics = 1000

// Reader reads records from a capture, plain JSONL, or either gzip-compressed.
// It is not safe for concurrent use.
type Reader struct {
	br      *bufio.Reader
	closer  io.Closer
	kind    string
	header  *Header
	line    int
	queue   []Record    // records read ahead, returned before reading on
	done    bool        // the input was read whole; only the queue is left
	docs    *docScanner // for KindDocuments input
	gz      *cutReader  // the gzip stream, for gzip input
	cut     bool        // the gzip stream ended early; noted in the diagnostics
	diags   []Diagnostic
	dropped int
	lastT   float64
	// late is set while CheckAll reads: a capture record's message is
	// not validated here (the decoder's scan decides whether it is JSON)
	// and whether its time goes back is left to CheckAll too, which makes
	// both checks in the records' order (lateChecks).
	late bool
	// shareLines is set while CheckSteps reads: the records' lines are
	// copied one after another into blocks of lineBlock bytes instead
	// of an allocation each (keepLine).
	shareLines bool
	block      []byte // the block being filled: its length is what is used
	// conns are the connections the header names, by ID; nil when it
	// names none (version 1, or no header).
	conns map[string]Connection
	// names are the connections' names, by ID, each told apart (ConnName).
	names map[string]string
}

// Open opens the file at path ("-" is standard input) for reading.
func Open(path string) (*Reader, error) {
	if path == "-" {
		return NewReader(os.Stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("capture: %s is a directory, not a capture", path)
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("capture: %s: %w", path, err)
	}
	r.closer = f
	return r, nil
}

// NewReader reads from src, telling a capture from plain JSONL and
// uncompressing gzip by looking at the first bytes. An empty input is a
// plain JSONL file with no records.
func NewReader(src io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	var gz *cutReader
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read the gzip header: %w", err)
		}
		gz = &cutReader{r: zr}
		br = bufio.NewReaderSize(gz, 64<<10)
	}
	r := &Reader{br: br, kind: KindJSONL, gz: gz}
	if err := r.detect(); err != nil {
		return nil, err
	}
	return r, nil
}

// detect reads up to the first non-blank line and decides the kind.
func (r *Reader) detect() error {
	for {
		line, last, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '{' && bytes.Contains(t, []byte(`"aaep_capture"`)) {
			var h Header
			if err := json.Unmarshal(t, &h); err == nil && h.Capture != 0 {
				if h.Capture > FormatVersion {
					r.diag(r.line, fmt.Sprintf("The capture says it is format version %d; this tool knows version %d and reads it as best it can.", h.Capture, FormatVersion), false)
				}
				r.kind, r.header = KindCapture, &h
				r.readConnections()
				return nil
			}
		}
		valid := protocol.Valid(t)
		if !valid && !last && (t[0] == '{' || t[0] == '[') {
			// A document over several lines, such as a pretty-printed event.
			r.startDocuments(t, r.line)
			return nil
		}
		if t[0] == '[' && valid && !isObjectArray(t) {
			r.kind = KindCapture
			r.diag(r.line, "The capture has no header line; reading its records anyway.", false)
		}
		r.parse(t, last)
		return nil
	}
}

// readConnections takes the connections the header names, leaving out
// (with a diagnostic) those with an ID that is not valid or already taken.
func (r *Reader) readConnections() {
	h := r.header
	if h.Capture < FormatVersion || len(h.Connections) == 0 {
		if h.Capture == FormatVersion {
			r.diag(r.line, "The capture is format version 2 but its header names no connections; its records are read as from one.", false)
		}
		h.Connections = nil
		return
	}
	r.conns, r.names = map[string]Connection{}, map[string]string{}
	taken := map[string]bool{} // names given, in lower case
	kept := h.Connections[:0]
	for _, c := range h.Connections {
		if !ValidConnID(c.ID) {
			r.diag(r.line, fmt.Sprintf("The header names a connection with the ID %q, which is not 1 to 64 letters, digits, '-' or '_'; its records are skipped.", protocol.Sanitize(c.ID)), false)
			continue
		}
		if _, dup := r.conns[c.ID]; dup {
			r.diag(r.line, fmt.Sprintf("The header names the connection %s twice; the first is kept.", c.ID), false)
			continue
		}
		if c.Label != "" && !agentspec.ValidLabel(c.Label) {
			r.diag(r.line, fmt.Sprintf("The header gives the connection %s the label %q, which is not 1 to 64 letters, digits, '-' or '_'; it is named by its endpoint.", c.ID, protocol.Sanitize(c.Label)), false)
			c.Label = ""
		}
		r.names[c.ID] = nameApart(c, taken)
		r.conns[c.ID] = c
		kept = append(kept, c)
	}
	h.Connections = kept
}

// nameApart names c by its label, else its endpoint, else its ID; a name
// an earlier connection has (in any case) gets c's ID after it, then a
// number, so no two connections read alike and no file can make one agent
// pass for another.
func nameApart(c Connection, taken map[string]bool) string {
	base := c.Name()
	if base == "" {
		base = c.ID
	}
	n := base
	for i := 1; taken[strings.ToLower(n)]; i++ {
		n = fmt.Sprintf("%s (connection %s)", base, c.ID)
		if i > 1 {
			n = fmt.Sprintf("%s (connection %s #%d)", base, c.ID, i)
		}
	}
	taken[strings.ToLower(n)] = true
	return n
}

// ConnName is how the connection of ID id is named to the user: as the
// header names it, apart from every other connection of the capture
// (nameApart); a connection the header does not name, by its ID; the one
// connection of version 1 (ID ""), "".
func (r *Reader) ConnName(id string) string {
	if n, ok := r.names[id]; ok {
		return n
	}
	return id
}

// Connection returns the connection of ID id as the header names it; one
// the header does not name (a capture without its header) has only its ID.
func (r *Reader) Connection(id string) Connection {
	if c, ok := r.conns[id]; ok {
		return c
	}
	return Connection{ID: id}
}

// connProblem says why a record may not name the connection id, "" when
// it may: a version-1 capture names none, a version-2 one only those of
// its header.
func (r *Reader) connProblem(id string) string {
	switch {
	case !ValidConnID(id):
		return "the connection of a record must be an ID of letters, digits, '-' or '_'."
	case r.header != nil && r.header.Capture < FormatVersion:
		return "a record must be [time, direction, message]." // as version 1 always said
	case r.conns != nil && r.conns[id].ID == "":
		return fmt.Sprintf("it names the connection %s, which the header does not name.", id)
	}
	return ""
}

// Kind returns KindCapture or KindJSONL.
func (r *Reader) Kind() string { return r.kind }

// Header returns the capture's header, or nil when it had none.
func (r *Reader) Header() *Header { return r.header }

// Diagnostics returns the problems met so far, in input order (the first
// thousand), and how many more there were.
func (r *Reader) Diagnostics() ([]Diagnostic, int) { return r.diags, r.dropped }

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Next returns the next record, skipping (with a diagnostic) lines that are
// not records. It returns io.EOF at the end of the input; any other error
// means the input could not be read further.
func (r *Reader) Next() (Record, error) {
	var rec Record
	err := r.next(&rec)
	return rec, err
}

// next is Next, setting *rec (CheckAll reads into its batch's steps, with
// no copy of each record on the way); *rec is unchanged on an error.
func (r *Reader) next(rec *Record) error {
	for len(r.queue) == 0 {
		if r.done {
			r.noteCut()
			return io.EOF
		}
		if r.docs != nil {
			if err := r.nextDocument(); err != nil {
				return err
			}
			continue
		}
		line, last, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.done = true
				continue
			}
			return err
		}
		t := line
		if len(t) == 0 || t[0] != '[' || t[len(t)-1] != ']' { // a record's line needs no trimming (trimSpace is a call)
			t = trimSpace(line)
		}
		switch {
		case len(t) == 0:
		case !last && t[0] == '[' && r.quickRecord(t, rec):
			return nil // the usual line of one record, not queued
		default:
			r.parseSlow(t, last)
		}
	}
	*rec = r.queue[0]
	if len(r.queue) == 1 {
		// The last one: the array is used again for the next line's
		// records (slicing past it would leave no room, and every
		// record would allocate a new one).
		r.queue[0] = Record{}
		r.queue = r.queue[:0]
	} else {
		r.queue = r.queue[1:]
	}
	return nil
}

// readLine returns the next line without its ending; last reports that it
// had no newline (the end of the input). Lines over MaxLineBytes are skipped.
func (r *Reader) readLine() (line []byte, last bool, err error) {
	chunk, err := r.br.ReadSlice('\n')
	if err == nil && len(chunk) <= MaxLineBytes {
		// The usual line, in the buffer whole, ended by its newline:
		// the rest, in a function of its own, made every line pay for
		// its frame (60 instructions a line, with trimEOL's loop).
		r.line++
		return trimEOL(chunk), false, nil
	}
	return r.readLineOn(chunk, err)
}

// readLineOn is readLine past the first part of a line, chunk, which
// ReadSlice returned with err: a line longer than the buffer, or the
// input's last line, or an error.
func (r *Reader) readLineOn(chunk []byte, err error) (line []byte, last bool, _ error) {
	var long []byte
	skipped := 0
	for ; ; chunk, err = r.br.ReadSlice('\n') {
		if err == nil && long == nil && skipped == 0 && len(chunk) <= MaxLineBytes {
			r.line++
			return trimEOL(chunk), false, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if skipped > 0 || len(long)+len(chunk) > MaxLineBytes {
				skipped += len(long) + len(chunk)
				long = nil
			} else {
				long = append(long, chunk...)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, fmt.Errorf("read line %d: %w", r.line+1, err)
		}
		if errors.Is(err, io.EOF) && len(chunk) == 0 && long == nil && skipped == 0 {
			return nil, false, io.EOF
		}
		r.line++
		last = errors.Is(err, io.EOF)
		if skipped == 0 && len(long)+len(trimEOL(chunk)) > MaxLineBytes {
			skipped, long = len(long), nil
		}
		if skipped > 0 {
			r.diag(r.line, fmt.Sprintf("Skipped line %d: %d bytes is longer than the limit of %d.", r.line, skipped+len(chunk), MaxLineBytes), false)
			if last {
				return nil, false, io.EOF
			}
			long, skipped = nil, 0
			continue
		}
		if long != nil {
			chunk = append(long, chunk...)
		}
		return trimEOL(chunk), last, nil
	}
}

// trimSpace is bytes.TrimSpace(b), without its loops when b neither
// begins nor ends with a byte that may be (part of) white space, as a
// record's line does: a printable ASCII byte is none.
func trimSpace(b []byte) []byte {
	if len(b) > 0 && b[0] > ' ' && b[0] < 0x7f && b[len(b)-1] > ' ' && b[len(b)-1] < 0x7f {
		return b
	}
	return bytes.TrimSpace(b)
}

// trimEOL is b without the line breaks ('\r', '\n') that end it, as
// bytes.TrimRight(b, "\r\n") cuts them, without making its set of
// bytes for every line.
func trimEOL(b []byte) []byte {
	if n := len(b); n > 1 && b[n-1] == '\n' && b[n-2] > '\r' {
		return b[:n-1] // the usual line: one '\n' ('\n' and '\r' are below '\r'+1)
	}
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// parse queues the records of one non-blank line; lines that hold none are
// skipped with a diagnostic.
func (r *Reader) parse(t []byte, last bool) {
	if rec, ok := r.parseLine(t, last); ok {
		r.queue = append(r.queue, rec)
	}
}

func (r *Reader) parseLine(t []byte, last bool) (Record, bool) {
	if !last && t[0] == '[' {
		// The fast path for the records of a capture: the record is split
		// by hand and only its message validated.
		var rec Record
		if r.quickRecord(t, &rec) {
			return rec, true
		}
	}
	return r.slowLine(t, last)
}

// parseSlow queues the records of the non-blank line t that quickRecord
// did not read; a line that holds none is skipped with a diagnostic.
func (r *Reader) parseSlow(t []byte, last bool) {
	if rec, ok := r.slowLine(t, last); ok {
		r.queue = append(r.queue, rec)
	}
}

// slowLine is parseLine without its fast path.
func (r *Reader) slowLine(t []byte, last bool) (Record, bool) {
	if !protocol.Valid(t) {
		if last {
			r.diag(r.line, fmt.Sprintf("Line %d, the last one, is cut short (the recording probably stopped while writing it); it was skipped.", r.line), true)
		} else {
			r.diag(r.line, fmt.Sprintf("Skipped line %d: it is not valid JSON.", r.line), false)
		}
		return Record{}, false
	}
	switch t[0] {
	case '{':
		if r.kind == KindCapture {
			// A bare message amid records: accept it as received.
			r.diag(r.line, fmt.Sprintf("Line %d is a bare message, not a [time, direction, message] record; it is read as received.", r.line), false)
		}
		return Record{Line: r.line, Dir: In, Msg: bytes.Clone(t)}, true
	case '[':
		if isObjectArray(t) {
			elems, bad := arrayElements(t)
			for _, e := range elems[:max(len(elems)-1, 0)] {
				r.queue = append(r.queue, Record{Line: r.line, Dir: In, Msg: bytes.Clone(e)})
			}
			if bad >= 0 {
				r.diag(r.line, fmt.Sprintf("Line %d: an element of the array is not a JSON object; the rest of the line was skipped.", r.line), false)
			}
			if len(elems) == 0 {
				return Record{}, false
			}
			return Record{Line: r.line, Dir: In, Msg: bytes.Clone(elems[len(elems)-1])}, true
		}
		return r.record(t)
	}
	r.diag(r.line, fmt.Sprintf("Skipped line %d: a message must be a JSON object.", r.line), false)
	return Record{}, false
}

// record reads [t, dir, msg], or [t, dir, msg, connection] in version 2.
func (r *Reader) record(t []byte) (Record, bool) {
	rec, why := r.recordOf(t, r.line)
	if why != "" {
		r.diag(r.line, why, false)
		return Record{}, false
	}
	r.keepTime(&rec)
	return rec, true
}

// recordOf reads the record t, valid JSON, of line n; why says why it is
// skipped ("" when it is not). It reads nothing of r but the connections
// of its header, which do not change once read, so CheckAll may call it
// while the reading goes on (notJSON).
func (r *Reader) recordOf(t []byte, n int) (rec Record, why string) {
	var parts []json.RawMessage
	if err := json.Unmarshal(t, &parts); err != nil || len(parts) != 3 && len(parts) != 4 {
		return Record{}, fmt.Sprintf("Skipped line %d: a record must be [time, direction, message].", n)
	}
	rec = Record{Line: n, HasT: true}
	if len(parts) == 4 {
		if json.Unmarshal(parts[3], &rec.Conn) != nil {
			rec.Conn = "\x00" // not a string: not valid
		}
		if why := r.connProblem(rec.Conn); why != "" {
			return Record{}, fmt.Sprintf("Skipped line %d: %s", n, why)
		}
	}
	var dir string
	if json.Unmarshal(parts[0], &rec.T) != nil || rec.T < 0 {
		return Record{}, fmt.Sprintf("Skipped line %d: the time of a record must be a number of seconds, zero or more.", n)
	}
	if json.Unmarshal(parts[1], &dir) != nil || (dir != string(In) && dir != string(Out)) {
		return Record{}, fmt.Sprintf("Skipped line %d: the direction of a record must be \"i\" (received) or \"o\" (sent).", n)
	}
	rec.Dir = Dir(dir)
	msg := bytes.TrimSpace(parts[2])
	if len(msg) == 0 || (msg[0] != '{' && msg[0] != '"') {
		return Record{}, fmt.Sprintf("Skipped line %d: the message of a record must be a JSON object (or a string for a frame that was not JSON).", n)
	}
	rec.Msg = bytes.Clone(msg)
	rec.Note = msg[0] == '{' && isNote(msg)
	return rec, ""
}

// keepTime notes a record whose time goes back, or, while CheckAll reads
// (r.late), leaves that to it, marking the record: whether an earlier
// record counts depends on whether its message was JSON, which CheckAll's
// decoding decides.
func (r *Reader) keepTime(rec *Record) {
	if r.late {
		rec.late, rec.diags = true, len(r.diags)+r.dropped
		return
	}
	if why := backInTime(rec, r.lastT); why != "" {
		r.diag(rec.Line, why, false)
	}
	r.lastT = max(r.lastT, rec.T)
}

// backInTime is the diagnostic of a record whose time is before last,
// the latest time of the records before it; "" when it is not.
func backInTime(rec *Record, last float64) string {
	if rec.T >= last {
		return ""
	}
	return fmt.Sprintf("Line %d goes back in time: %.3f s after %.3f s on an earlier line.", rec.Line, rec.T, last)
}

// notJSON is the diagnostic the reader makes of the line of rec, a record
// of CheckAll's reading whose message its decoding found is not JSON: what
// parseLine says of such a line (the line is not JSON, or is JSON but not
// a record).
func (r *Reader) notJSON(rec Record) string {
	if protocol.Valid(rec.line) {
		if _, why := r.recordOf(rec.line, rec.Line); why != "" {
			return why
		}
	}
	return fmt.Sprintf("Skipped line %d: it is not valid JSON.", rec.Line)
}

// quickRecord splits a record [t,"d",{…}] into *rec without decoding its
// message; false means the line is not that simple and must be read the
// slow way (*rec is then unchanged).
func (r *Reader) quickRecord(t []byte, rec *Record) bool {
	i := skipSpace(t, 1)
	sec, j, ok := jsonTimeAt(t, i)
	if !ok || sec < 0 {
		return false
	}
	k := skipSpace(t, j)
	if k >= len(t) || t[k] != ',' {
		return false
	}
	k = skipSpace(t, k+1)
	if k+3 > len(t) || t[k] != '"' || t[k+2] != '"' || (t[k+1] != 'i' && t[k+1] != 'o') {
		return false
	}
	dir := In
	if t[k+1] == 'o' {
		dir = Out
	}
	k = skipSpace(t, k+3)
	if k >= len(t) || t[k] != ',' {
		return false
	}
	if k+1 >= len(t) || t[len(t)-1] != ']' {
		return false
	}
	end, id := connSuffix(t)
	if end <= k+1 { // [t,"d","ID"]: an ID where the message should be
		return false
	}
	msg := t[k+1 : end]
	if len(msg) == 0 || msg[0] != '{' || msg[len(msg)-1] != '}' { // an object needs no trimming (trimSpace is a call)
		msg = trimSpace(msg)
	}
	if len(msg) < 2 || msg[0] != '{' || msg[len(msg)-1] != '}' || !r.late && !protocol.Valid(msg) {
		return false
	}
	var conn string
	if id != nil {
		var ok bool
		if conn, ok = r.connID(id); !ok {
			return false // the slow path says why
		}
	}
	var line []byte
	if r.late {
		// The decoder's scan decides whether the message is JSON, so
		// that its bytes are scanned once; the line is kept for what
		// the reader says of it if not (notJSON). The message is a part
		// of it, not a copy.
		var ok bool
		if line, ok = r.keepInBlock(t); !ok {
			line = r.keepLine(t)
		}
		at := cap(t) - cap(msg) // where msg, a part of t, begins
		msg = line[at : at+len(msg) : at+len(msg)]
	} else {
		msg = bytes.Clone(msg)
	}
	// Each field is written once, one by one: the step's memory is on
	// the heap, and a struct written whole there (*rec = Record{…}) cost
	// 64 instructions. While CheckAll reads, whether the message is a
	// transport note is left to its decoding too (prepare): an event that
	// decodes has a "type", which isNote looked for first.
	rec.Line, rec.T, rec.HasT, rec.Dir, rec.Msg, rec.Conn, rec.line = r.line, sec, true, dir, msg, conn, line
	if r.late {
		rec.Note, rec.late, rec.diags = false, true, len(r.diags)+r.dropped // keepTime, without its call
		return true
	}
	rec.Note, rec.late, rec.diags = isNote(msg), false, 0
	r.keepTime(rec)
	return true
}

// lineBlock is the size of the blocks CheckSteps's lines are copied into
// (Reader.shareLines): about 50 records of 600 bytes.
const lineBlock = 32 << 10

// keepLine returns a copy of the line t, a record's, which the reader's
// buffer will overwrite. While CheckSteps reads (r.shareLines) a line is
// copied after the one before in the block being filled, if it fits, else
// into a new block if it is no longer than an eighth of lineBlock (so
// that little of a block is left unused): one allocation of 640 bytes a
// record was about 125 instructions, and the collector's to follow. A string cut from such a
// line keeps the whole block alive, not just its line: whatever the
// checker keeps beyond a record's step is copied first (Checker.keep),
// and CheckSteps tells its caller to do the same. Otherwise, and for a
// longer line, the copy is an allocation of its own.
//
// The usual line, which fits in the block being filled, quickRecord
// copies itself (keepInBlock) before calling this for one that does not:
// this function's call and append's checks cost 53 instructions a record.
// The block is nil unless r.shareLines.
func (r *Reader) keepLine(t []byte) []byte {
	if !r.shareLines || len(t) > lineBlock/8 {
		line := make([]byte, len(t)) // make and copy: one makeslicecopy, cheaper than bytes.Clone's growslice
		copy(line, t)
		return line
	}
	r.block = make([]byte, 0, lineBlock)
	line, _ := r.keepInBlock(t)
	return line
}

// keepInBlock copies t after the lines in the block being filled, if it
// fits there; the line is capped at its end, so that appending to it
// cannot write over the next.
func (r *Reader) keepInBlock(t []byte) ([]byte, bool) {
	n := len(r.block)
	if len(t) > cap(r.block)-n {
		return nil, false
	}
	b := r.block[:n+len(t)]
	copy(b[n:], t)
	r.block = b
	return b[n:len(b):len(b)], true
}

// jsonTimeAt reads the time that begins t[i:], a record's time, and
// returns where it ends; it must be written as JSON writes a number
// (isJSONNumber): ok is false for any other, and for one ParseFloat does
// not read.
func jsonTimeAt(t []byte, i int) (sec float64, end int, ok bool) {
	sec, end, json, err := readTime(t, i)
	return sec, end, json && err == nil
}

// readTime reads the number that begins t[i:] (digits, '.', 'e', 'E',
// '+', '-') as strconv.ParseFloat reads it, and returns where it ends;
// json reports whether it is written as JSON writes one (isJSONNumber). The usual time, digits, or digits, a point
// and digits (at most 15 of them), is read without ParseFloat (its
// look-ups of special values, its conversion of the text to a string):
// such digits are a whole number m < 2^53 over 10^d, d <= 15, both exact
// as float64, so the quotient, rounded once, is the number rounded, as
// ParseFloat rounds it. It is told to be JSON by its first two bytes,
// without a second pass over its digits.
func readTime(t []byte, i int) (sec float64, end int, json bool, err error) {
	// The digits before the point, then those after it: one loop that
	// also looked for the point cost twice as much a digit.
	m, j := digits(t, i, 0)
	point := -1
	if j < len(t) && t[j] == '.' {
		point = j
		m, j = digits(t, j+1, m)
	}
	n := j - i // digits and point
	switch {
	case j < len(t) && isNumberByte(t[j]), // an exponent, a sign, a second point
		n == 0, point == i, point == j-1, // no digits before or after the point
		point < 0 && n > 15, n > 16:
		for j < len(t) && isNumberByte(t[j]) {
			j++
		}
		sec, err = strconv.ParseFloat(string(t[i:j]), 64)
		return sec, j, err == nil && isJSONNumber(t[i:j]), err
	}
	// Digits on both sides of any point, no sign, no exponent: a number
	// as JSON writes it unless it has a leading zero that is not alone
	// ("05", "00.5").
	json = t[i] != '0' || n == 1 || t[i+1] == '.'
	if point < 0 {
		return float64(m), j, json, nil
	}
	return float64(m) / pow10[j-1-point], j, json, nil
}

// digits reads the decimal digits that begin t[j:] onto m: it returns
// m·10ⁿ plus their value, n their number, and where they end. (Eight
// bytes read at a time, as one word, cost 68 instructions a call, and a
// range loop 16 a digit: more than this loop's 11 for the few digits of a
// time.)
func digits(t []byte, j int, m uint64) (uint64, int) {
	for j < len(t) && t[j]-'0' <= 9 {
		m = m*10 + uint64(t[j]-'0')
		j++
	}
	return m, j
}

// isJSONNumber reports whether b is a number as JSON writes it: a leading
// zero only alone, digits on both sides of a point and after an exponent.
// strconv.ParseFloat, and so readTime, takes more ("00.5", ".5", "+1").
func isJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i]-'1' <= 8:
		_, i = digits(b, i, 0)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := i + 1
		if _, i = digits(b, j, 0); i == j {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		j := i + 1
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if _, i = digits(b, j, 0); i == j {
			return false
		}
	}
	return i == len(b)
}

// isNumberByte reports whether b may be part of a JSON number.
func isNumberByte(b byte) bool {
	return b >= '0' && b <= '9' || b == '.' || b == 'e' || b == 'E' || b == '+' || b == '-'
}

// pow10 are the powers of ten readTime divides by, exact as float64.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// connID returns the connection ID id, which a record names, as a string,
// and whether the record may name it (connProblem). An ID of the header
// is the header's string: a new one for every record was an allocation
// a record of a version-2 capture.
func (r *Reader) connID(id []byte) (string, bool) {
	if c, ok := r.conns[string(id)]; ok {
		return c.ID, true
	}
	conn := string(id)
	return conn, r.connProblem(conn) == ""
}

// connSuffix finds the connection ID that ends a record t, `…,"ID"]`: it
// returns where the message ends and the ID (a part of t), or len(t)-1
// and nil when t ends with no simple ID (the slow path then judges it).
func connSuffix(t []byte) (int, []byte) {
	e := len(t) - 1 // the ']'
	j := e - 1
	for j >= 0 && isJSONSpace(t[j]) {
		j--
	}
	if j < 0 || t[j] != '"' {
		return e, nil
	}
	i := j - 1
	for i >= 0 && t[i] != '"' && t[i] != '\\' && j-i <= 65 {
		i--
	}
	if i < 0 || t[i] != '"' || !ValidConnID(string(t[i+1:j])) {
		return e, nil
	}
	c := i - 1
	for c >= 0 && isJSONSpace(t[c]) {
		c--
	}
	if c < 0 || t[c] != ',' {
		return e, nil
	}
	return c, t[i+1 : j]
}

// isJSONSpace reports whether b is white space as JSON has it. Most bytes
// are above ' ', which one comparison tells (four cost 22 instructions a
// record in quickRecord's four skipSpace).
func isJSONSpace(b byte) bool { return b <= ' ' && (b == ' ' || b == '\t' || b == '\r' || b == '\n') }

// isNote reports whether msg is a transport note: it has "transport" and no "type",
// names compared exactly as JSON writes them (an escaped name is its
// text), not as encoding/json matches a struct's fields, ignoring case.
func isNote(msg []byte) bool {
	if !bytes.HasPrefix(msg, []byte(`{"transport"`)) && (hasTypeName(msg) ||
		!bytes.Contains(msg, []byte(`"transport"`)) && bytes.IndexByte(msg, '\\') < 0) {
		return false
	}
	var n map[string]json.RawMessage
	if json.Unmarshal(msg, &n) != nil {
		return false
	}
	_, transport := n["transport"]
	_, typ := n["type"]
	return transport && !typ
}

// hasTypeName reports whether msg holds `"type"`, as bytes.Contains does,
// going from one 'y' to the next: bytes.Index stops at every quote, and a
// message is full of them.
func hasTypeName(msg []byte) bool {
	for i := 0; i < len(msg); i++ {
		j := bytes.IndexByte(msg[i:], 'y')
		if j < 0 {
			return false
		}
		i += j
		if i >= 2 && i+4 <= len(msg) && string(msg[i-2:i+4]) == `"type"` {
			return true
		}
	}
	return false
}

func (r *Reader) diag(line int, msg string, truncated bool) {
	if len(r.diags) >= maxDiagnostics {
		r.dropped++
		return
	}
	r.diags = append(r.diags, Diagnostic{Line: line, Message: msg, Truncated: truncated})
}

// cutReader reads a gzip stream, taking its end cut short (a copy
// interrupted, a recorder killed before it closed the file) as the end of
// the input, so that everything before the cut is read; cut records that
// it was.
type cutReader struct {
	r   io.Reader
	cut bool
}

func (c *cutReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		c.cut, err = true, io.EOF
	}
	return n, err
}

// CutShort reports whether the input, read to its end, was a gzip file cut
// short (a diagnostic says so too).
func (r *Reader) CutShort() bool { return r.cut }

// noteCut adds, once, at the end of the input, the diagnostic for a gzip
// file cut short.
func (r *Reader) noteCut() {
	if r.gz == nil || !r.gz.cut {
		return
	}
	r.gz.cut, r.cut = false, true
	line := r.line
	if r.docs != nil {
		line = r.docs.line
	}
	r.diag(line, fmt.Sprintf("The gzip file ends early, after line %d: it was cut short (a copy interrupted, or the recording stopped before it closed the file). Everything before the cut was read.", line), true)
}
