package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds arbitrary input to the reader and the checker: neither
// may panic, every record holds valid JSON on one line, and line numbers go up.
func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"aaep_capture":1,"started_at":"x"}` + "\n" + `[0.5,"i",` + sampleEvent + "]\n"))
	f.Add([]byte(sampleEvent + "\n" + `[0.7,"i",{"type":"aa`))
	f.Add([]byte("[\n" + sampleEvent + ",\n" + sampleEvent + "\n]"))
	f.Add([]byte("{\n\"a\": [1, {\"b\": \"\\u00e9\"}]\n}\n{"))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0})
	// Version 2: connections in the header, each record naming one.
	v2 := `{"aaep_capture":2,"started_at":"x","connections":[{"id":"c1","label":"mail","endpoint":"e"},{"id":"c2","endpoint":"f"}]}` + "\n"
	f.Add([]byte(v2 + `[0.5,"i",` + sampleEvent + `,"c1"]` + "\n" + `[0.6,"o",` + sampleEvent + ` , "c2" ]` + "\n"))
	f.Add([]byte(v2 + `[0.5,"i","frame","c2"]` + "\n" + `[0.6,"i",{},"c3"]` + "\n" + `[0.7,"i",{},"c\"1"]`))
	f.Add([]byte(`[0.5,"i",{"a":"\",\"c1\""},"c1"]`))
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		f.Fatal(err)
	}
	red := NewRedactor()
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			return
		}
		last := 0
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return
			}
			if rec.Line < last {
				t.Fatalf("line %d after line %d", rec.Line, last)
			}
			last = rec.Line
			if bytes.ContainsAny(rec.Msg, "\n\r") || !jsonValid(rec.Msg) || (rec.Msg[0] != '{' && !rec.IsText()) {
				t.Fatalf("record is not one line of JSON: %q", rec.Msg)
			}
			if rec.Conn != "" && (!ValidConnID(rec.Conn) || r.Header() != nil && r.Header().Capture < FormatVersion) {
				t.Fatalf("record names the connection %q in %+v", rec.Conn, r.Header())
			}
			if h := r.Header(); rec.Conn != "" && h != nil && len(h.Connections) > 0 && !hasConn(h, rec.Conn) {
				t.Fatalf("record names the connection %q, not in the header", rec.Conn)
			}
			c.Check(rec)
			if out := red.Redact(rec.Msg); len(out) != len(rec.Msg) || !jsonValid(out) {
				t.Fatalf("redaction broke %q into %q", rec.Msg, out)
			}
		}
		c.Finish()
	})
}

func jsonValid(b []byte) bool { return json.Valid(b) }

func hasConn(h *Header, id string) bool {
	for _, c := range h.Connections {
		if c.ID == id {
			return true
		}
	}
	return false
}
