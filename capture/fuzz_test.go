package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
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

// lateInputs are captures whose records CheckAll must skip or keep as the
// reader does on its own, though it leaves two of the reader's checks to
// the decoding (lateChecks): messages that are not JSON in lines that
// are, or are not, JSON, times going back after them, and more
// diagnostics than are kept.
func lateInputs() map[string][]byte {
	const head = `{"aaep_capture":1,"started_at":"x"}` + "\n"
	v2 := `{"aaep_capture":2,"started_at":"x","connections":[{"id":"c1","endpoint":"e"}]}` + "\n"
	ev := func(t string) string { return `[` + t + `,"i",` + sampleEvent + "]\n" }
	deep := `{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`
	var many strings.Builder
	many.WriteString(head)
	for i := range 700 {
		fmt.Fprintf(&many, "[%d,\"i\",{\"a\":}]\n[%d,\"x\",{}]\n[%d,\"i\",%s]\n", 900-i, i, i%7, sampleEvent)
	}
	return map[string][]byte{
		"two objects for a message":   []byte(head + ev("0.5") + `[0.6,"i",{"a":1},{"b":2}]` + "\n" + ev("0.7")),
		"three objects for a message": []byte(head + `[0.6,"i",{"a":1},{"b":2},{"c":3}]` + "\n" + ev("0.7")),
		"not JSON, later in time":     []byte(head + ev("1") + `[9,"i",{"type":"a}]` + "\n" + ev("2") + ev("1.5")),
		"a NUL after the message":     []byte(head + `[0.5,"i",` + sampleEvent + "\x00}]\n" + ev("0.1")),
		"connections":                 []byte(v2 + `[0.5,"i",{"a":1},{"b":2},"c1"]` + "\n" + `[0.6,"i",{"a" 1},"c1"]` + "\n" + `[0.4,"i",` + sampleEvent + `,"c1"]` + "\n"),
		"nested deeper than events":   []byte(head + `[3,"i",` + deep + "]\n" + `[2,"i",` + strings.Replace(deep, "[]", "[}", 1) + "]\n" + ev("1")),
		"no header":                   []byte(`[5,"i",{"a":x}]` + "\n" + ev("4") + `[3,"i",{"a":x}]` + "\n"),
		"more diagnostics than kept":  []byte(many.String()),
		"transport notes": []byte(head + ev("0.1") + `[0.2,"i",{"transport":"sse","note":"reconnected"}]` + "\n" + `[0.3,"i",{"note":"x","transport":"sse","TYPE":1}]` + "\n" +
			`[0.4,"i",{"transport":"sse","t\u0079pe":"x"}]` + "\n" + `[0.5,"i",{"transport":"sse",}]` + "\n" + `[0.6,"i",{"tr\u0061nsport":null}]` + "\n" +
			`[0.7,"o",{"transport":"sse"}]` + "\n" + `[0.8,"i",` + strings.Replace(sampleEvent, "{", `{"transport":"sse",`, 1) + "]\n" + ev("0.9")),
	}
}

// checkBoth checks in twice: each record read with Next and checked with
// Check, one after the other (the reader validates each message and
// notes each time going back), and with CheckAll, which leaves those two
// checks to its decoding. The steps, the diagnostics and Finish must be
// the same. The checkers use schemas s.
func checkBoth(t *testing.T, s *protocol.Schemas, in []byte) {
	type result struct {
		steps  []string
		diags  []Diagnostic
		more   int
		failed bool
		finish []Violation
	}
	show := func(st Step) string {
		r := st.Record
		return fmt.Sprintf("line %d %v %s %q %s %v t=%v/%v type %q event %v: %+v", r.Line, r.Note, r.Dir, r.Conn, r.Msg, r.HasT, r.T, r.HasT, st.Type, st.Event != nil, st.Violations)
	}
	run := func(all bool) (res result, ok bool) {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			return res, false
		}
		c, err := NewChecker(CheckOptions{Schemas: s})
		if err != nil {
			t.Fatal(err)
		}
		if all {
			res.failed = c.CheckSteps(r, func(st *Step) { res.steps = append(res.steps, show(*st)) }) != nil
		} else {
			for {
				rec, err := r.Next()
				if err != nil {
					res.failed = !errors.Is(err, io.EOF)
					break
				}
				res.steps = append(res.steps, show(c.Check(rec)))
			}
		}
		res.diags, res.more = r.Diagnostics()
		res.finish = c.Finish()
		return res, true
	}
	one, ok := run(false)
	if !ok {
		return
	}
	all, _ := run(true)
	if !reflect.DeepEqual(one, all) {
		if !slices.Equal(one.steps, all.steps) {
			t.Errorf("steps one by one:\n%s\nwith CheckAll:\n%s", strings.Join(one.steps, "\n"), strings.Join(all.steps, "\n"))
		}
		t.Fatalf("one by one: %+v\nwith CheckAll: %+v", one, all)
	}
}

// TestCheckAllAgreesWithCheck: CheckAll skips, keeps and reports what
// reading and checking one record after the other does.
func TestCheckAllAgreesWithCheck(t *testing.T) {
	s, err := protocol.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range lateInputs() {
		t.Run(name, func(t *testing.T) { checkBoth(t, s, in) })
	}
}

// FuzzCheckAll: CheckAll agrees with reading and checking one record after
// the other on any input (checkBoth).
func FuzzCheckAll(f *testing.F) {
	for _, in := range lateInputs() {
		if len(in) < 4096 {
			f.Add(in)
		}
	}
	f.Add([]byte(`{"aaep_capture":1,"started_at":"x"}` + "\n" + `[0.5,"i",` + sampleEvent + "]\n"))
	s, err := protocol.NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkBoth(t, s, in) })
}

// FuzzRecordTime: a record's time reads as strconv.ParseFloat reads it,
// bit for bit, or fails where it fails, alone (recordTime) and where it
// begins a record (timeAt).
func FuzzRecordTime(f *testing.F) {
	for _, s := range []string{"0", "0.5", "12.345678", "00.5", "1.", ".5", "1e3", "-1", "123456789012345", "1234567890123456",
		"0.000000000000001", "9007199254740993", "1.2.3", "", "0.1", "4.35", "199.999", "0.30000000000000004",
		"05", "00.5", "0.5", "12345678.12345678", "123456789", "/9:", "1\xfa2", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := recordTime([]byte(s))
		want, werr := strconv.ParseFloat(s, 64)
		if (err == nil) != (werr == nil) || err == nil && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("recordTime(%q) = %v, %v; ParseFloat: %v, %v", s, got, err, want, werr)
		}
		// timeAt in a record: the number's bytes end where they end, and
		// are read as ParseFloat reads them.
		line := []byte("[" + s + `,"i",{}]`)
		end := 1
		for end < len(line) && isNumberByte(line[end]) {
			end++
		}
		got, j, err := timeAt(line, 1)
		want, werr = strconv.ParseFloat(string(line[1:end]), 64)
		if j != end || (err == nil) != (werr == nil) || err == nil && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("timeAt(%q, 1) = %v, %d, %v; want %v, %d, %v", line, got, j, err, want, end, werr)
		}
		// jsonTimeAt, the record's reading: timeAt, and whether the
		// number is written as JSON writes one (isJSONNumber).
		jgot, jj, ok := jsonTimeAt(line, 1)
		if wantOK := err == nil && isJSONNumber(line[1:j]); jj != j || ok != wantOK || ok && math.Float64bits(jgot) != math.Float64bits(got) {
			t.Fatalf("jsonTimeAt(%q, 1) = %v, %d, %v; want %v, %d, %v", line, jgot, jj, ok, got, j, wantOK)
		}
		// digits reads what a plain byte loop reads.
		for at := range min(len(line), 10) {
			m, k := digits(line, at, 7)
			wm, wk := uint64(7), at
			for wk < len(line) && line[wk] >= '0' && line[wk] <= '9' {
				wm, wk = wm*10+uint64(line[wk]-'0'), wk+1
			}
			if m != wm || k != wk {
				t.Fatalf("digits(%q, %d, 7) = %d, %d; a byte loop: %d, %d", line, at, m, k, wm, wk)
			}
		}
	})
}

// FuzzReaderHelpers: the reader's hand-made searches agree with the
// bytes package's.
func FuzzReaderHelpers(f *testing.F) {
	for _, s := range []string{"", "y", `"type"`, `{"type":1}`, `"typ"type"`, `yy"type"y`, "a\r\n", "\n\r\r", `{"@context":"x","type":"aaep:agent.state.changed"}`, " \t\r\n\f\v\x00\x85\xa0x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := hasTypeName(b), bytes.Contains(b, []byte(`"type"`)); got != want {
			t.Fatalf("hasTypeName(%q) = %v, bytes.Contains: %v", b, got, want)
		}
		if got, want := trimEOL(b), bytes.TrimRight(b, "\r\n"); !bytes.Equal(got, want) {
			t.Fatalf("trimEOL(%q) = %q, bytes.TrimRight: %q", b, got, want)
		}
		if got, want := skipSpace(b, 0), len(b)-len(bytes.TrimLeft(b, " \t\r\n")); got != want {
			t.Fatalf("skipSpace(%q, 0) = %d, bytes.TrimLeft leaves %d", b, got, want)
		}
	})
}

// isJSONNumber agrees with encoding/json on what is a number: the quick
// path of a record takes no time the slow path would not.
func FuzzIsJSONNumber(f *testing.F) {
	for _, s := range []string{"0", "12.345678", "00.5", ".5", "+1", "1.", "1.e5", "-0", "1e-05", "1E+2", "0.0e0", "-", "01", "1e", "9007199254740993"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := len(b) > 0 && json.Valid(b)
		for _, c := range b {
			want = want && isNumberByte(c)
		}
		if got := isJSONNumber(b); got != want {
			t.Fatalf("isJSONNumber(%q) = %v, want %v", b, got, want)
		}
	})
}

// A transport note has the member "transport" and no "type", by their
// exact names: "Transport" or "TYPE" are other members.
func TestIsNoteExactNames(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		note bool
	}{
		{`{"transport":"sse","note":"reconnected"}`, true},
		{`{"note":"x","transport":"sse"}`, true},
		{`{"transport":"sse","type":"aaep:agent.state.changed"}`, false},
		{`{"Transport":"sse"}`, false},
		{`{"TRANSPORT":"sse","note":"x"}`, false},
		{`{"transport":"sse","TYPE":"x"}`, true},
		{`{"transport":"sse","t\u0079pe":"x"}`, false},
		{`{"tr\u0061nsport":"sse"}`, true},
		{`{"transport":null}`, true},
		{`{"transport":"sse"`, false},
	} {
		if got := isNote([]byte(tc.msg)); got != tc.note {
			t.Errorf("isNote(%s) = %v, want %v", tc.msg, got, tc.note)
		}
	}
}
