package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// prettyDocuments is n pretty-printed events, one after the other, as
// other AAEP tools write event files.
func prettyDocuments(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "{\n  \"type\": \"aaep:agent.state.changed\",\n  \"event_id\": \"evt_%06d\",\n  \"session_id\": \"sess_a\",\n  \"sequence_number\": %d,\n  \"from_state\": \"idle\",\n  \"to_state\": \"thinking\"\n}\n", i, i)
	}
	return b.Bytes()
}

// whitespaceBomb is a small gzip file that holds n bytes of whitespace
// after the opening of a document (inside=true) or between documents.
func whitespaceBomb(t testing.TB, n int, inside bool) []byte {
	t.Helper()
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	io.WriteString(zw, "{\n\"type\": \"a\"\n}\n")
	if inside {
		io.WriteString(zw, "{\n")
	}
	chunk := bytes.Repeat([]byte(" \n\t "), 1<<14)
	for w := 0; w < n; w += len(chunk) {
		zw.Write(chunk)
	}
	if inside {
		io.WriteString(zw, "\"type\": \"b\"}\n")
	} else {
		io.WriteString(zw, "{\"type\": \"b\"}\n")
	}
	zw.Close()
	return z.Bytes()
}

// readAll reads every record of in, keeping none, and returns how many
// there were, the diagnostics and the bytes allocated on the way.
func readAll(t testing.TB, in []byte) (n int, diags []Diagnostic, alloc uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	runtime.ReadMemStats(&after)
	diags, _ = r.Diagnostics()
	return n, diags, after.TotalAlloc - before.TotalAlloc
}

// Whitespace, between documents or inside one, is read past without being
// kept: 64 MiB of it costs far less than 64 MiB of memory.
func TestDocumentsWhitespaceBomb(t *testing.T) {
	for _, inside := range []bool{false, true} {
		t.Run(fmt.Sprint("inside=", inside), func(t *testing.T) {
			n, diags, alloc := readAll(t, whitespaceBomb(t, 64<<20, inside))
			if n != 2 || len(diags) != 0 {
				t.Errorf("%d records, diagnostics %v; want 2 and none", n, diags)
			}
			if alloc > 8<<20 {
				t.Errorf("reading 64 MiB of whitespace allocated %d MiB; want at most 8", alloc>>20)
			}
		})
	}
}

// A document larger than MaxDocumentBytes stops the reading with a
// diagnostic naming its line and the limit; what came before is kept.
func TestDocumentSizeLimit(t *testing.T) {
	in := "{\n\"type\": \"a\"\n}\n\n{\n\"text\": \"" + strings.Repeat("x", MaxDocumentBytes) + "\"\n}\n{\"type\":\"c\"}\n"
	n, diags, _ := readAll(t, []byte(in))
	if n != 1 || len(diags) != 1 || diags[0].Line != 5 || !strings.Contains(diags[0].Message, fmt.Sprintf("%d MiB", MaxDocumentBytes>>20)) {
		t.Fatalf("%d records, diagnostics %+v; want 1 and one about the document on line 5 over %d MiB", n, diags, MaxDocumentBytes>>20)
	}
}

// Many documents: each record is on the line its document starts on.
func TestDocumentLines(t *testing.T) {
	recs, diags, err := ReadDocuments(bytes.NewReader(prettyDocuments(1000)))
	if err != nil || len(diags) != 0 || len(recs) != 1000 {
		t.Fatalf("%d records, diagnostics %v, error %v", len(recs), diags, err)
	}
	for i, r := range recs {
		if r.Line != 1+8*i {
			t.Fatalf("record %d on line %d, want %d", i, r.Line, 1+8*i)
		}
	}
}

// Malformed documents: the records before the fault, then one diagnostic
// naming the line where the bad document starts.
func TestDocumentFaults(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		n, line  int
		says     string
	}{
		{"scalar after", "{\n\"a\":1\n}\n42\n{\"b\":2}", 1, 4, "must be a JSON object"},
		{"bad syntax", "{\n\"a\":1\n}\n{\n\"b\": 1 2\n}\n", 1, 4, "cannot be read"},
		{"unterminated", "{\n\"a\":1\n}\n{\n\"b\": \"x", 1, 4, "cannot be read"},
		{"array of scalars", "[\n{\"a\":1},\n2,\n{\"b\":3}\n]", 1, 3, "not a JSON object"},
		{"bracket mismatch", "{\n\"a\":[1}\n]\n", 0, 1, "cannot be read"},
		{"string with brackets", "{\n\"a\":\"}]\\\"{[\"\n}\n", 1, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs, diags, err := ReadDocuments(strings.NewReader(tt.in))
			if err != nil || len(recs) != tt.n {
				t.Fatalf("%d records, error %v; want %d", len(recs), err, tt.n)
			}
			if tt.says == "" {
				if len(diags) != 0 {
					t.Fatalf("diagnostics %+v", diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Line != tt.line || !strings.Contains(diags[0].Message, tt.says) {
				t.Fatalf("diagnostics %+v; want one on line %d saying %q", diags, tt.line, tt.says)
			}
		})
	}
}

// FuzzReadDocuments reads arbitrary input as documents (it starts with a
// document over several lines). It must not panic; every record is one
// line of JSON; and when the whole input is a valid sequence of objects or
// arrays of objects, the records are exactly those objects, compacted, in order.
func FuzzReadDocuments(f *testing.F) {
	f.Add([]byte(`"a": 1}`))
	f.Add([]byte("\"a\": [1, {\"b\": \"\\u00e9\"}]\n}\n{\n\"c\":\"}\"}\n[{\"d\":1},\n{\"e\":2}]"))
	f.Add([]byte("\"a\":\"x\"}\n  \n\t[\n]\n{}"))
	f.Add([]byte("\"a\":1}\n3\n"))
	f.Add([]byte("\"a\":1}{\"b\":[}"))
	f.Fuzz(func(t *testing.T, tail []byte) {
		in := append([]byte("{\n"), tail...)
		recs, _, err := ReadDocuments(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("error %v", err)
		}
		last := 0
		for _, rec := range recs {
			if rec.Line < last || bytes.ContainsAny(rec.Msg, "\n\r") || !json.Valid(rec.Msg) || rec.Msg[0] != '{' {
				t.Fatalf("record on line %d after line %d: %q", rec.Line, last, rec.Msg)
			}
			last = rec.Line
		}
		want, ok := decodeAll(in)
		if !ok {
			return
		}
		if len(recs) != len(want) {
			t.Fatalf("%d records, want %d", len(recs), len(want))
		}
		for i := range want {
			if !bytes.Equal(recs[i].Msg, want[i]) {
				t.Fatalf("record %d is %s, want %s", i, recs[i].Msg, want[i])
			}
		}
	})
}

// decodeAll is the reference: the objects of in, a sequence of objects or
// arrays of objects, compacted; false if in is anything else.
func decodeAll(in []byte) ([][]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(in))
	var out [][]byte
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return out, true
		}
		if err != nil {
			return nil, false
		}
		var elems []json.RawMessage
		switch raw[0] {
		case '{':
			elems = []json.RawMessage{raw}
		case '[':
			if json.Unmarshal(raw, &elems) != nil {
				return nil, false
			}
		default:
			return nil, false
		}
		for _, e := range elems {
			if e[0] != '{' {
				return nil, false
			}
			var b bytes.Buffer
			json.Compact(&b, e)
			out = append(out, b.Bytes())
		}
	}
}

// BenchmarkDocuments reads 120,000 pretty-printed events, and a gzip file
// of 250 MiB of whitespace inside a document: "read" only reads the
// records, "check" checks them too, as aaep-replay check does. It reports
// the time and the bytes allocated per pass, and the memory the process
// took from the system.
func BenchmarkDocuments(b *testing.B) {
	for _, in := range []struct {
		name string
		data func() []byte
	}{
		{"pretty-120k", func() []byte { return prettyDocuments(120_000) }},
		{"whitespace-bomb", func() []byte { return whitespaceBomb(b, 250<<20, true) }},
	} {
		data := in.data()
		for _, check := range []bool{false, true} {
			mode := map[bool]string{false: "read", true: "check"}[check]
			b.Run(mode+"/"+in.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					r, err := NewReader(bytes.NewReader(data))
					if err != nil {
						b.Fatal(err)
					}
					c, err := NewChecker(CheckOptions{})
					if err != nil {
						b.Fatal(err)
					}
					for {
						rec, err := r.Next()
						if errors.Is(err, io.EOF) {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
						if check {
							c.Check(rec)
						}
					}
					c.Finish()
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.Sys>>20), "sys-MiB")
			})
		}
	}
}
