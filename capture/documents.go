// documents.go: reading the message shapes other AAEP tools and fixtures use:
// a pretty-printed JSON document, concatenated documents, a JSON array.

package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// KindDocuments is input of JSON documents spread over lines (pretty-printed
// objects, or arrays of objects), rather than one message per line.
const KindDocuments = "json"

// MaxDocumentBytes bounds one document (one object, or one element of an
// array), counting its whitespace outside strings as one byte a run: the
// same limit as a line. A larger document stops the reading with a diagnostic.
const MaxDocumentBytes = MaxLineBytes

// ReadDocuments reads every record of src (any input NewReader accepts) and
// the diagnostics met on the way.
func ReadDocuments(src io.Reader) ([]Record, []Diagnostic, error) {
	r, err := NewReader(src)
	if err != nil {
		return nil, nil, err
	}
	recs, err := r.Records()
	return recs, r.diags, err
}

// startDocuments reads the rest of the input, from first, a line that is
// not JSON on its own (line firstLine), as JSON documents.
func (r *Reader) startDocuments(first []byte, firstLine int) {
	r.kind = KindDocuments
	src := io.MultiReader(bytes.NewReader(append(bytes.Clone(first), '\n')), r.br)
	r.docs = &docScanner{br: bufio.NewReaderSize(src, 64<<10), line: firstLine}
}

// nextDocument queues the next record of document input, or ends the input
// at its end or at the first document that cannot be read.
func (r *Reader) nextDocument() error {
	rec, err := r.docs.next()
	var bad *docFault
	switch {
	case err == nil:
		r.queue = append(r.queue, rec)
	case errors.Is(err, io.EOF):
		r.done = true
	case errors.As(err, &bad):
		r.done = true
		r.diag(bad.line, fmt.Sprintf("Line %d: the JSON document starting there cannot be read (%s); the rest of the input was skipped.", bad.line, bad.reason), false)
	default:
		return fmt.Errorf("read line %d: %w", r.docs.line, err)
	}
	return nil
}

// docFault is a document that cannot be read, starting on line.
type docFault struct {
	line   int
	reason string
}

func (f *docFault) Error() string { return fmt.Sprintf("line %d: %s", f.line, f.reason) }

// Where a docScanner is: at the top level, or inside a top-level array.
const (
	atTop        = iota
	afterOpen    // just after "[": an element or "]"
	afterElement // a "," or "]"
	afterComma   // an element
)

// docScanner splits JSON documents off a stream one at a time, in one pass
// over the bytes: an object at the top level, or each object of a
// top-level array, is one record. Whitespace outside strings is counted
// for line numbers and never kept (a run of it is kept as one space inside
// a document, so that "1 2" stays invalid), and one document may hold at
// most MaxDocumentBytes: the memory used is bounded whatever the input.
type docScanner struct {
	br    *bufio.Reader
	line  int // the line of the next byte
	state int
	buf   []byte // the document being read, reused
}

// next returns the next record, io.EOF at the end of the input, a
// *docFault for a document that cannot be read, or a read error.
func (s *docScanner) next() (Record, error) {
	for {
		c, err := s.peek()
		if errors.Is(err, io.EOF) && s.state != atTop {
			return Record{}, &docFault{s.line, "the input ends inside an array"}
		}
		if err != nil {
			return Record{}, err
		}
		switch s.state {
		case atTop:
			switch c {
			case '{':
				return s.object()
			case '[':
				s.br.ReadByte()
				s.state = afterOpen
				continue
			}
			return Record{}, &docFault{s.line, "a message must be a JSON object"}
		case afterElement:
			s.br.ReadByte()
			switch c {
			case ',':
				s.state = afterComma
			case ']':
				s.state = atTop
			default:
				return Record{}, &docFault{s.line, fmt.Sprintf("%q after an element of an array", c)}
			}
			continue
		}
		if c == ']' && s.state == afterOpen {
			s.br.ReadByte()
			s.state = atTop
			continue
		}
		if c != '{' {
			return Record{}, &docFault{s.line, "an array element is not a JSON object"}
		}
		rec, err := s.object()
		s.state = afterElement
		return rec, err
	}
}

// peek skips whitespace, counting lines, and returns the next byte unread.
func (s *docScanner) peek() (byte, error) {
	for {
		b, err := s.chunk()
		if err != nil {
			return 0, err
		}
		for i, c := range b {
			switch c {
			case '\n':
				s.line++
			case ' ', '\t', '\r':
			default:
				s.br.Discard(i)
				return c, nil
			}
		}
		s.br.Discard(len(b))
	}
}

// chunk returns the bytes buffered, reading more if there are none; the
// caller discards what it used.
func (s *docScanner) chunk() ([]byte, error) {
	if _, err := s.br.Peek(1); err != nil {
		return nil, err
	}
	return s.br.Peek(s.br.Buffered())
}

// object reads the object that starts at the next byte, a "{".
func (s *docScanner) object() (Record, error) {
	line := s.line
	if err := s.value(line); err != nil {
		return Record{}, err
	}
	if !json.Valid(s.buf) {
		reason := "it is not valid JSON"
		var raw json.RawMessage
		if err := json.Unmarshal(s.buf, &raw); err != nil {
			reason = err.Error()
		}
		return Record{}, &docFault{line, reason}
	}
	return Record{Line: line, Dir: In, Msg: compact(s.buf)}, nil
}

// value reads into s.buf the bytes up to the bracket that closes the one
// at the next byte, keeping strings whole and each run of whitespace
// outside them as one space. It does not check the JSON; the brackets need
// only balance.
func (s *docScanner) value(line int) error {
	s.buf = s.buf[:0]
	depth := 0
	inString, escaped, space := false, false, false
	for {
		b, err := s.chunk()
		if errors.Is(err, io.EOF) {
			return &docFault{line, "the input ends inside it"}
		}
		if err != nil {
			return err
		}
		for i, c := range b {
			if c == '\n' {
				s.line++
			}
			if len(s.buf) >= MaxDocumentBytes {
				return &docFault{line, fmt.Sprintf("it is larger than the limit of %d MiB", MaxDocumentBytes>>20)}
			}
			if inString {
				s.buf = append(s.buf, c)
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
				}
				continue
			}
			switch c {
			case ' ', '\t', '\r', '\n':
				space = true
				continue
			}
			if space {
				s.buf = append(s.buf, ' ')
				space = false
			}
			s.buf = append(s.buf, c)
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					s.br.Discard(i + 1)
					return nil
				}
			}
		}
		s.br.Discard(len(b))
	}
}

// arrayElements splits a JSON array of objects; bad is the offset of the
// first element that is not an object, or -1.
func arrayElements(arr []byte) (elems [][]byte, bad int) {
	dec := json.NewDecoder(bytes.NewReader(arr))
	if _, err := dec.Token(); err != nil {
		return nil, 0
	}
	for dec.More() {
		start := skipSpace(arr, int(dec.InputOffset()))
		if start < len(arr) && arr[start] == ',' {
			start = skipSpace(arr, start+1)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || raw[0] != '{' {
			return elems, start
		}
		elems = append(elems, raw)
	}
	return elems, -1
}

// isObjectArray reports whether t, valid JSON, is an array whose first element is an object.
func isObjectArray(t []byte) bool {
	i := skipSpace(t, 1)
	return t[0] == '[' && i < len(t) && t[i] == '{'
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// compact returns b on one line.
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return bytes.Clone(b)
	}
	return buf.Bytes()
}
