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
			c.Check(rec)
			if out := red.Redact(rec.Msg); len(out) != len(rec.Msg) || !jsonValid(out) {
				t.Fatalf("redaction broke %q into %q", rec.Msg, out)
			}
		}
		c.Finish()
	})
}

func jsonValid(b []byte) bool { return json.Valid(b) }
