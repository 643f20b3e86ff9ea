// documents.go: reading the message shapes other AAEP tools and fixtures use:
// a pretty-printed JSON document, concatenated documents, a JSON array.

package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// KindDocuments is input of JSON documents spread over lines (pretty-printed
// objects, or arrays of objects), rather than one message per line.
const KindDocuments = "json"

// MaxDocumentBytes bounds input read as JSON documents, which is read whole.
const MaxDocumentBytes = 256 << 20

// ReadDocuments reads every record of src (any input NewReader accepts) and
// the diagnostics met on the way.
func ReadDocuments(src io.Reader) ([]Record, []Diagnostic, error) {
	r, err := NewReader(src)
	if err != nil {
		return nil, nil, err
	}
	var recs []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return recs, r.diags, err
		}
		recs = append(recs, rec)
	}
	return recs, r.diags, nil
}

// slurp reads the input from first, a line that is not JSON on its own
// (line firstLine), as JSON documents.
func (r *Reader) slurp(first []byte, firstLine int) error {
	var buf bytes.Buffer
	buf.Write(first)
	buf.WriteByte('\n')
	n, err := io.Copy(&buf, io.LimitReader(r.br, MaxDocumentBytes))
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if n >= MaxDocumentBytes {
		return fmt.Errorf("a JSON document over several lines may be at most %d MiB", MaxDocumentBytes>>20)
	}
	data := buf.Bytes()
	r.kind = KindDocuments
	recs, line, err := documents(data, firstLine)
	r.queue = recs
	r.done = true
	if err != nil {
		r.diag(line, fmt.Sprintf("Line %d: the JSON document starting there cannot be read (%v); the rest of the input was skipped.", line, err), false)
	}
	return nil
}

// documents reads concatenated JSON values, each an object or an array of
// objects, from data whose first byte is on line firstLine. On error, line
// is where the bad value starts.
func documents(data []byte, firstLine int) (recs []Record, line int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	lineOf := func(off int) int { return firstLine + bytes.Count(data[:off], []byte{'\n'}) }
	for {
		start := skipSpace(data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return recs, 0, nil
			}
			return recs, lineOf(start), err
		}
		switch raw[0] {
		case '{':
			recs = append(recs, Record{Line: lineOf(start), Dir: In, Msg: compact(raw)})
		case '[':
			elems, bad := arrayElements(raw)
			for _, e := range elems {
				recs = append(recs, Record{Line: lineOf(start + e.off), Dir: In, Msg: compact(e.raw)})
			}
			if bad >= 0 {
				return recs, lineOf(start + bad), errors.New("an array element is not a JSON object")
			}
		default:
			return recs, lineOf(start), errors.New("a message must be a JSON object")
		}
	}
}

type element struct {
	raw []byte
	off int
}

// arrayElements splits a JSON array of objects; bad is the offset of the
// first element that is not an object, or -1.
func arrayElements(arr []byte) (elems []element, bad int) {
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
		elems = append(elems, element{raw: raw, off: start})
	}
	return elems, -1
}

// isObjectArray reports whether t, valid JSON, is an array whose first element is an object.
func isObjectArray(t []byte) bool {
	i := skipSpace(t, 1)
	return t[0] == '[' && i < len(t) && t[i] == '{'
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
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
