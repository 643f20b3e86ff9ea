package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

const sampleEvent = `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.session.started","event_id":"evt_abc123","session_id":"sess_abc123","timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"summary_normal":"Hi."}`

func readRecords(t *testing.T, in []byte) (*Reader, []Record) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r, recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// What the writer writes, the reader reads back: times, directions, notes,
// frames that were not JSON, multi-line messages put on one line.
func TestWriteRead(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now()
	w, err := NewWriter(&buf, Header{Endpoint: "http://x", Tool: "test"}, start, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pretty := "{\n  \"type\": \"subscription.close\",\n  \"subscription_id\": \"sub_abc12345\"\n}"
	steps := []struct {
		dir Dir
		msg string
	}{{In, sampleEvent}, {Out, pretty}, {In, "not json at all\n\x1b[31m"}}
	for i, s := range steps {
		if err := w.Write(s.dir, []byte(s.msg), start.Add(time.Duration(i+1)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Note("closed", "bye", start.Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(buf.String(), "\n"); lines != 5 {
		t.Fatalf("%d lines written, want 5:\n%s", lines, buf.String())
	}
	r, recs := readRecords(t, buf.Bytes())
	if r.Kind() != KindCapture || r.Header() == nil || r.Header().Endpoint != "http://x" || r.Header().Redacted {
		t.Fatalf("kind %s header %+v", r.Kind(), r.Header())
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	if string(recs[0].Msg) != sampleEvent || recs[0].T != 1 || recs[0].Dir != In || recs[0].Line != 2 {
		t.Errorf("record 0: %+v", recs[0])
	}
	if recs[1].Dir != Out || !json.Valid(recs[1].Msg) || bytes.ContainsRune(recs[1].Msg, '\n') {
		t.Errorf("record 1: %+v", recs[1])
	}
	var text string
	if !recs[2].IsText() || json.Unmarshal(recs[2].Msg, &text) != nil || text != steps[2].msg {
		t.Errorf("record 2 does not keep the frame that is not JSON: %s", recs[2].Msg)
	}
	if !recs[3].Note || recs[3].T != 5 {
		t.Errorf("record 3 is not the note: %+v", recs[3])
	}
	if d, _ := r.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics: %v", d)
	}
}

// JSONL output holds only received events, one per line, no header: no
// handshake message nor reply, which tools reading plain event JSONL refuse.
func TestWriteJSONL(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{}, time.Now(), WriterOptions{JSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		d Dir
		s string
	}{
		{In, `{"type":"subscription.accepted","subscription_id":"sub_1"}`},
		{In, sampleEvent}, {Out, sampleEvent}, {In, "garbage"},
		{In, `{"type":"subscription.rejected","code":"x"}`},
		{In, `{"type":"confirmation.reply","reply_token":"rpl_1","decision":"reject"}`},
		{In, `{"type":"subscription.close"}`},
	} {
		if err := w.Write(m.d, []byte(m.s), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Note("connected", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if buf.String() != sampleEvent+"\n" {
		t.Fatalf("got %q", buf.String())
	}
	r, recs := readRecords(t, buf.Bytes())
	if r.Kind() != KindJSONL || len(recs) != 1 || recs[0].HasT {
		t.Fatalf("kind %s records %+v", r.Kind(), recs)
	}
}

// Concurrent writers never interleave within a line.
func TestWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{}, time.Now(), WriterOptions{Redactor: NewRedactor()})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_ = w.Write(In, []byte(sampleEvent), time.Now())
			}
		}()
	}
	wg.Wait()
	_, recs := readRecords(t, buf.Bytes())
	if len(recs) != 800 || w.Count() != 800 {
		t.Fatalf("%d records read, %d written", len(recs), w.Count())
	}
}

// A failed write is reported, and every later write returns it.
func TestWriterStickyError(t *testing.T) {
	fw := &failWriter{after: 2}
	w, err := NewWriter(fw, Header{}, time.Now(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(In, []byte(sampleEvent), time.Now()); err != nil {
		t.Fatal(err)
	}
	err1 := w.Write(In, []byte(sampleEvent), time.Now())
	err2 := w.Write(In, []byte(sampleEvent), time.Now())
	if err1 == nil || err2 != err1 || !strings.Contains(err1.Error(), "record 2") {
		t.Fatalf("errors %v, %v", err1, err2)
	}
}

type failWriter struct{ after, n int }

func (f *failWriter) Write(b []byte) (int, error) {
	f.n++
	if f.n > f.after {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

// The reader tells inputs apart and says what it skipped.
func TestReaderInputs(t *testing.T) {
	rec := func(t float64, d, m string) string { return fmt.Sprintf("[%g,%q,%s]", t, d, m) }
	header := `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","redacted":true}`
	for _, tt := range []struct {
		name  string
		in    string
		kind  string
		n     int
		diags []string // substrings, in order
	}{
		{"empty", "", KindJSONL, 0, nil},
		{"blank lines", "\n\n  \n", KindJSONL, 0, nil},
		{"jsonl", sampleEvent + "\r\n" + sampleEvent + "\n", KindJSONL, 2, nil},
		{"capture", header + "\n" + rec(0.5, "i", sampleEvent) + "\n" + rec(0.6, "o", `{"type":"x"}`) + "\n", KindCapture, 2, nil},
		{"no header", rec(0.5, "i", sampleEvent) + "\n", KindCapture, 1, []string{"no header"}},
		{"truncated", header + "\n" + rec(0.5, "i", sampleEvent) + "\n" + `[0.7,"i",{"type":"aa`, KindCapture, 1, []string{"cut short"}},
		{"garbage line", sampleEvent + "\nhello\n" + sampleEvent + "\n", KindJSONL, 2, []string{"line 2: it is not valid JSON"}},
		{"bad record", header + "\n[1,2]\n[-1,\"i\",{}]\n[1,\"x\",{}]\n[1,\"i\",3]\n", KindCapture, 0,
			[]string{"[time, direction, message]", "number of seconds", "direction", "must be a JSON object"}},
		{"back in time", header + "\n" + rec(2, "i", sampleEvent) + "\n" + rec(1, "i", sampleEvent) + "\n", KindCapture, 2, []string{"back in time"}},
		{"scalar", "42\n", KindJSONL, 0, []string{"must be a JSON object"}},
		{"newer version", `{"aaep_capture":9,"started_at":"x"}` + "\n", KindCapture, 0, []string{"version 9"}},
		{"bare message amid records", header + "\n" + sampleEvent + "\n", KindCapture, 1, []string{"bare message"}},
		// A time JSON does not write is no record's, on the quick path
		// as on the slow one.
		{"times JSON does not write", header + "\n[00.5,\"i\",{}]\n[.5,\"i\",{}]\n[+1,\"i\",{}]\n[1.,\"i\",{}]\n[1.e5,\"i\",{}]\n[01, \"i\",{}]\n", KindCapture, 0,
			[]string{"line 2: it is not valid JSON", "line 3: it is not valid JSON", "line 4: it is not valid JSON", "line 5: it is not valid JSON", "line 6: it is not valid JSON", "line 7: it is not valid JSON"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, recs := readRecords(t, []byte(tt.in))
			if r.Kind() != tt.kind || len(recs) != tt.n {
				t.Errorf("kind %s, %d records; want %s, %d", r.Kind(), len(recs), tt.kind, tt.n)
			}
			diags, _ := r.Diagnostics()
			if len(diags) != len(tt.diags) {
				t.Fatalf("diagnostics %v, want %d", diags, len(tt.diags))
			}
			for i, d := range diags {
				if !strings.Contains(d.Message, tt.diags[i]) {
					t.Errorf("diagnostic %q does not say %q", d.Message, tt.diags[i])
				}
			}
		})
	}
}

// Gzip-compressed input is read like the plain one.
func TestReaderGzip(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	fmt.Fprintf(zw, "%s\n%s\n", sampleEvent, sampleEvent)
	zw.Close()
	_, recs := readRecords(t, z.Bytes())
	if len(recs) != 2 || string(recs[1].Msg) != sampleEvent {
		t.Fatalf("records %v", recs)
	}
	if _, err := NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 1})); err == nil {
		t.Error("a broken gzip header was accepted")
	}
}

// A line over the limit is skipped without being kept, and reading goes on.
func TestReaderLongLine(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", MaxLineBytes) + `"}`
	_, recs := readRecords(t, []byte(sampleEvent+"\n"+long+"\n"+sampleEvent+"\n"))
	if len(recs) != 2 || recs[1].Line != 3 {
		t.Fatalf("%d records, the second on line %d; want 2, line 3", len(recs), recs[len(recs)-1].Line)
	}
}

// A record given an earlier time than the one before it (a transport note
// written from another goroutine) keeps the times of the file monotonic.
func TestWriterMonotonic(t *testing.T) {
	var buf bytes.Buffer
	start := time.Now()
	w, err := NewWriter(&buf, Header{}, start, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{2, 1, 3} {
		if err := w.Write(In, []byte(sampleEvent), start.Add(d*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	r, recs := readRecords(t, buf.Bytes())
	if d, _ := r.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics: %v", d)
	}
	if len(recs) != 3 || recs[0].T != 2 || recs[1].T != 2 || recs[2].T != 3 {
		t.Errorf("records %+v", recs)
	}
}
