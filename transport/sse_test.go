package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"
)

// parseAll runs an SSEReader to the end and describes what it returned, one
// string per event or error, so results can be compared across readers.
func parseAll(t testing.TB, src io.Reader, limit int) (out []string, comments []string, diags []string) {
	return parseWith(t, src, limit, false, 0)
}

// parseSlow is parseWith of a reader that reads every line through
// readLine and fieldLine (never lines).
func parseSlow(t testing.TB, src io.Reader, limit int, own bool, bufSize int) (out []string, comments []string, diags []string) {
	return parseMode(t, src, limit, own, bufSize, true)
}

// parseWith is parseAll, with each event's data the caller's when own is
// set (as sseConn reads), and a read buffer of bufSize bytes when it is
// not zero: the data are then formatted only at the end, so that a later
// read writing over an earlier event's data shows.
func parseWith(t testing.TB, src io.Reader, limit int, own bool, bufSize int) (out []string, comments []string, diags []string) {
	return parseMode(t, src, limit, own, bufSize, false)
}

// parseMode is parseWith, through readLine and fieldLine alone when slow.
func parseMode(t testing.TB, src io.Reader, limit int, own bool, bufSize int, slow bool) (out []string, comments []string, diags []string) {
	rd := NewSSEReader(src)
	rd.own, rd.slow = own, slow
	rd.bufSize = bufSize
	rd.MaxFrameBytes = limit
	rd.OnComment = func(b []byte) { comments = append(comments, string(b)) }
	rd.OnDiagnostic = func(s string) { diags = append(diags, s) }
	var evs []SSEEvent // own: out's events by index, formatted at the end
	for i := 0; ; i++ {
		if i > 1_000_000 {
			t.Fatal("reader does not end")
		}
		ev, err := rd.Next()
		var tl *FrameTooLargeError
		switch {
		case errors.As(err, &tl):
			out = append(out, fmt.Sprintf("too large %d id=%s", tl.Size, tl.ID))
			evs = append(evs, SSEEvent{})
			continue
		case err != nil:
			r, ok := rd.Retry()
			out = append(out, fmt.Sprintf("end %v last=%q retry=%v,%v", err, rd.LastEventID(), r, ok))
			if _, err2 := rd.Next(); err2 != err {
				t.Fatalf("error not sticky: %v then %v", err, err2)
			}
			for i, ev := range evs {
				if ev.Data != nil {
					out[i] = fmt.Sprintf("%s|%s|%q", ev.Type, ev.ID, ev.Data)
				}
			}
			return
		}
		if own {
			out = append(out, "")
			evs = append(evs, ev)
			continue
		}
		out = append(out, fmt.Sprintf("%s|%s|%q", ev.Type, ev.ID, ev.Data))
	}
}

func TestSSEReader(t *testing.T) {
	const eof = `end EOF last="" retry=0s,false`
	const unexpected = `end unexpected EOF last="" retry=0s,false`
	tests := []struct {
		name     string
		in       string
		limit    int
		want     []string
		comments []string
		diags    int
	}{
		{name: "LF", in: "data: a\n\n", want: []string{`||"a"`, eof}},
		{name: "CRLF", in: "data: a\r\n\r\n", want: []string{`||"a"`, eof}},
		{name: "lone CR", in: "data: a\r\r", want: []string{`||"a"`, eof}},
		{name: "mixed endings", in: "data: a\r\ndata: b\rdata:c\n\r\n", want: []string{`||"a\nb\nc"`, eof}},
		{
			// CRs read long before the line they end, carried as a
			// buffer's bytes move or go to a new buffer.
			name: "far CRs", in: "data: 0123456789abcdef\ndata: x\r: a comment line\rid: 7\n\nevent: e\r\ndata: y\n\r",
			want: []string{`|7|"0123456789abcdef\nx"`, `e|7|"y"`, `end EOF last="7" retry=0s,false`},
		},
		{name: "no space after colon", in: "data:a\n\n", want: []string{`||"a"`, eof}},
		{name: "only one space dropped", in: "data:  a \n\n", want: []string{`||" a "`, eof}},
		{name: "field without colon", in: "data\ndata\n\n", want: []string{`||"\n"`, eof}},
		{name: "empty data", in: "data:\n\n", want: []string{`||""`, eof}},
		{name: "blank lines between", in: "\n\n\ndata: x\n\n\n\n", want: []string{`||"x"`, eof}},
		{name: "multi-line json", in: "data: {\ndata: \"a\": 1\ndata: }\n\n", want: []string{`||"{\n\"a\": 1\n}"`, eof}},
		{
			name: "comments", in: ": connected\n:heartbeat\ndata: x\n:  two\n\n",
			want: []string{`||"x"`, eof}, comments: []string{"connected", "heartbeat", " two"},
		},
		{
			name: "event type resets", in: "event: aaep.event\ndata: x\n\ndata: y\n\n",
			want: []string{`aaep.event||"x"`, `||"y"`, eof},
		},
		{name: "event without data is not dispatched", in: "event: e\n\ndata: y\n\n", want: []string{`||"y"`, eof}},
		{
			name: "id persists", in: "id: 1\ndata: a\n\ndata: b\n\n",
			want: []string{`|1|"a"`, `|1|"b"`, `end EOF last="1" retry=0s,false`},
		},
		{
			name: "empty id resets", in: "id: 1\ndata: a\n\nid\ndata: b\n\n",
			want: []string{`|1|"a"`, `||"b"`, eof},
		},
		{
			name: "id with NUL ignored", in: "id: 1\n\nid: a\x00b\ndata: x\n\n",
			want: []string{`|1|"x"`, `end EOF last="1" retry=0s,false`}, diags: 1,
		},
		{
			name: "id-only event counts for resume", in: "data: a\n\nid: 7\n\n",
			want: []string{`||"a"`, `end EOF last="7" retry=0s,false`},
		},
		{
			name: "id of cut-off event does not count", in: "id: 1\ndata: a\n\nid: 2\ndata: b\n",
			want: []string{`|1|"a"`, `end unexpected EOF last="1" retry=0s,false`},
		},
		{name: "retry", in: "retry: 1500\n\n", want: []string{`end EOF last="" retry=1.5s,true`}},
		{name: "retry not digits", in: "retry: 15x\n\nretry: -1\n\nretry:\n\n", want: []string{eof}, diags: 3},
		{name: "retry huge is capped", in: "retry: 99999999999999999999999\n\n", want: []string{`end EOF last="" retry=24h0m0s,true`}},
		{name: "unknown fields ignored", in: "foo: bar\nDATA: y\nData: z\ndata: x\n\n", want: []string{`||"x"`, eof}},
		{name: "BOM", in: "\xef\xbb\xbfdata: x\n\n", want: []string{`||"x"`, eof}},
		{name: "second BOM is part of the field name", in: "\xef\xbb\xbf\xef\xbb\xbfdata: x\n\ndata: y\n\n", want: []string{`||"y"`, eof}},
		{name: "partial final event", in: "data: a\n\ndata: b\n", want: []string{`||"a"`, unexpected}},
		{name: "unterminated final line", in: "data: a\n\ndata: b", want: []string{`||"a"`, unexpected}},
		{name: "event not ended by blank line", in: "data: a\n", want: []string{unexpected}},
		{name: "trailing comment is not an event", in: "data: a\n\n: bye", want: []string{`||"a"`, eof}, comments: nil},
		{name: "empty stream", in: "", want: []string{eof}},
		{name: "invalid UTF-8 untouched", in: "data: \xff\xfe\x80\xc3\n\n", want: []string{`||"\xff\xfe\x80\xc3"`, eof}},
		{name: "NUL in data untouched", in: "data: a\x00b\n\n", want: []string{`||"a\x00b"`, eof}},
		{
			name: "too large skipped", in: "id: 9\ndata: 0123456789AB\n\ndata: ok\n\n", limit: 10,
			want: []string{`too large 12 id=9`, `|9|"ok"`, `end EOF last="9" retry=0s,false`},
		},
		{
			name: "too large across lines", in: "data: 123456\ndata: 1234\n\ndata: 12345\ndata: 123\n\n", limit: 10,
			want: []string{`too large 11 id=`, `||"12345\n123"`, eof},
		},
		{name: "exactly the limit", in: "data: 0123456789\n\n", limit: 10, want: []string{`||"0123456789"`, eof}},
		{name: "too large at end of stream", in: "data: 0123456789AB\n", limit: 10, want: []string{unexpected}},
		{
			// The id read before the data goes with it; one read after
			// it, or with no data, is an id of its own.
			name: "ids before, after and without data", in: "id: 1\ndata: a\n\ndata: b\nid: 2\n\nid: 3\n\nid: 4\nid: 5\nevent: e\ndata: c\ndata: d\n\ndata: e\n\n",
			want: []string{`|1|"a"`, `|2|"b"`, `e|5|"c\nd"`, `|5|"e"`, `end EOF last="5" retry=0s,false`},
		},
		{
			name: "id before data too large", in: "id: 1\ndata: a\n\nid: 2\ndata: 0123456789AB\n\ndata: ok\n\n", limit: 10,
			want: []string{`|1|"a"`, `too large 12 id=2`, `|2|"ok"`, `end EOF last="2" retry=0s,false`},
		},
		{
			name: "id of cut-off event with data does not count", in: "id: 1\ndata: a\n\nid: 2\ndata: b\n",
			want: []string{`|1|"a"`, `end unexpected EOF last="1" retry=0s,false`},
		},
		{
			name: "long id before data", in: "id: " + strings.Repeat("i", 70) + "\ndata: a\n\n",
			want: []string{`|` + strings.Repeat("i", 70) + `|"a"`, `end EOF last="` + strings.Repeat("i", 70) + `" retry=0s,false`},
		},
		{
			name: "lines between the known ones", in: "id: 1\n: hb\nretry: 5\nevent: e\ndata: a\nfoo: x\ndata:b\n\n",
			want: []string{`e|1|"a\nb"`, `end EOF last="1" retry=5ms,true`}, comments: []string{"hb"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := map[string]func() io.Reader{
				"whole":    func() io.Reader { return strings.NewReader(tt.in) },
				"one byte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tt.in)) },
				"half":     func() io.Reader { return iotest.HalfReader(strings.NewReader(tt.in)) },
				"data+EOF": func() io.Reader { return iotest.DataErrReader(strings.NewReader(tt.in)) },
			}
			for rname, mk := range readers {
				got, comments, diags := parseAll(t, mk(), tt.limit)
				// The data the caller's, read through a buffer of 16
				// bytes (bytes moved and lines cut in pieces often):
				// the same events.
				small, smallComments, smallDiags := parseWith(t, mk(), tt.limit, true, 16)
				if strings.Join(got, "\n") != strings.Join(small, "\n") || strings.Join(comments, "|") != strings.Join(smallComments, "|") || len(diags) != len(smallDiags) {
					t.Errorf("%s: data the caller's, a buffer of 16 bytes:\n%s\nwant\n%s", rname, strings.Join(small, "\n"), strings.Join(got, "\n"))
				}
				// Every line read through readLine and fieldLine, as
				// before lines: the same events, whoever owns the data.
				for _, own := range []bool{false, true} {
					slow, slowComments, slowDiags := parseSlow(t, mk(), tt.limit, own, 0)
					if strings.Join(got, "\n") != strings.Join(slow, "\n") || strings.Join(comments, "|") != strings.Join(slowComments, "|") || len(diags) != len(slowDiags) {
						t.Errorf("%s: line by line (own %v):\n%s\nwant\n%s", rname, own, strings.Join(slow, "\n"), strings.Join(got, "\n"))
					}
				}
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("%s: got\n%s\nwant\n%s", rname, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
				}
				if tt.comments != nil && strings.Join(comments, "|") != strings.Join(tt.comments, "|") {
					t.Errorf("%s: comments %q, want %q", rname, comments, tt.comments)
				}
				if len(diags) != tt.diags {
					t.Errorf("%s: diagnostics %q, want %d", rname, diags, tt.diags)
				}
			}
		})
	}
}

// TestSSEReaderReadError: an error from the source that is not EOF is
// returned as it is, and again on every later call.
func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	rd := NewSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)))
	if ev, err := rd.Next(); err != nil || string(ev.Data) != "a" {
		t.Fatalf("first: %q %v", ev.Data, err)
	}
	for range 2 {
		if _, err := rd.Next(); err != boom {
			t.Fatalf("got %v, want boom", err)
		}
	}
}

// hugeEventReader yields "data: " + n bytes of 'x' + "\n\n" + tail without
// holding the event in memory.
type hugeEventReader struct {
	head, tail string
	n          int
	state      int
}

func (h *hugeEventReader) Read(p []byte) (int, error) {
	switch h.state {
	case 0:
		h.state = 1
		return copy(p, h.head), nil
	case 1:
		if h.n == 0 {
			h.state = 2
			return copy(p, "\n\n"+h.tail), nil // tails here are short
		}
		k := min(len(p), h.n)
		for i := range k {
			p[i] = 'x'
		}
		h.n -= k
		return k, nil
	}
	return 0, io.EOF
}

// TestSSEReaderHugeLine: a 10 MB data line is skipped without being kept in
// memory, and the next event is read.
func TestSSEReaderHugeLine(t *testing.T) {
	const n = 10 << 20
	src := &hugeEventReader{head: "id: big\ndata: ", tail: "id: next\ndata: after\n\n", n: n}
	rd := NewSSEReader(src)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := rd.Next()
	runtime.ReadMemStats(&after)
	var tl *FrameTooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("got %v, want a FrameTooLargeError", err)
	}
	if tl.Size != n || tl.Limit != DefaultMaxFrameBytes || tl.ID != "big" {
		t.Errorf("error %+v", tl)
	}
	// Up to the limit is buffered (with append growth) before the event is
	// known to be too large; the rest of the 10 MB must not be.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 6*DefaultMaxFrameBytes {
		t.Errorf("allocated %d bytes skipping a %d-byte line", grew, n)
	}
	ev, err := rd.Next()
	if err != nil || string(ev.Data) != "after" || ev.ID != "next" {
		t.Fatalf("next event %q %q %v", ev.Data, ev.ID, err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// TestSSEReaderLongLines: lines longer than the read buffer, for every field,
// with the colon and its space around the buffer boundary.
func TestSSEReaderLongLines(t *testing.T) {
	for _, pad := range []int{sseBufSize - 7, sseBufSize - 6, sseBufSize - 5, sseBufSize - 1, sseBufSize, 3*sseBufSize + 1} {
		long := strings.Repeat("y", pad)
		in := ": " + long + "\n" + // long comment, truncated
			"id: " + long + "\n" +
			"event: e\n" +
			"data: " + long + "\n" +
			"data:" + long + "\n" +
			"\n"
		// The data line starts at a varying offset; put the colon at the
		// buffer's end too.
		in += strings.Repeat("z", sseBufSize-5) + "data: q\n\n" // unknown field: "zzz…data"
		for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in))} {
			rd := NewSSEReader(r)
			var comment []byte
			rd.OnComment = func(b []byte) { comment = bytes.Clone(b) }
			ev, err := rd.Next()
			if err != nil {
				t.Fatalf("pad %d: %v", pad, err)
			}
			if want := long + "\n" + long; string(ev.Data) != want || ev.ID != long || ev.Type != "e" {
				t.Fatalf("pad %d: got data %d bytes, id %d bytes, type %q", pad, len(ev.Data), len(ev.ID), ev.Type)
			}
			if len(comment) != min(pad, maxCommentBytes) {
				t.Errorf("pad %d: comment of %d bytes", pad, len(comment))
			}
			if _, err := rd.Next(); err != io.EOF {
				t.Fatalf("pad %d: end: %v", pad, err)
			}
		}
	}
}

// randomChunks reads src in pieces of random size.
type randomChunks struct {
	src []byte
	rng *rand.Rand
}

func (r *randomChunks) Read(p []byte) (int, error) {
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(r.src), 1+r.rng.IntN(64))
	if r.rng.IntN(8) == 0 {
		n = min(len(p), len(r.src), 1+r.rng.IntN(3*sseBufSize))
	}
	copy(p, r.src[:n])
	r.src = r.src[n:]
	return n, nil
}

// encodeEvents writes each value as one event, one data line per line of the
// value; CR bytes are dropped as the format cannot carry them.
func encodeEvents(values [][]byte) (stream []byte, want []string) {
	var b bytes.Buffer
	for i, v := range values {
		v = bytes.ReplaceAll(v, []byte("\r"), nil)
		fmt.Fprintf(&b, "event: t%d\nid: %d\n", i%3, i)
		for _, line := range bytes.Split(v, []byte("\n")) {
			b.WriteString("data: ")
			b.Write(line)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
		want = append(want, fmt.Sprintf("t%d|%d|%q", i%3, i, v))
	}
	return b.Bytes(), want
}

func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("data: a\n\n"), uint64(1))
	f.Add([]byte("\xef\xbb\xbfevent: x\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\n: hb\rretry: 10\r\r"), uint64(2))
	f.Add([]byte("data: 0123456789ABCDEF\n\ndata\n\nid: \x00\ndata: q"), uint64(3))
	f.Add([]byte("data:\r\n\rdata: \xff\n\n"), uint64(4))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		// Chunking never changes the result.
		whole, wc, _ := parseAll(t, bytes.NewReader(in), 16)
		chunked, cc, _ := parseAll(t, &randomChunks{src: in, rng: rand.New(rand.NewPCG(seed, 1))}, 16)
		if strings.Join(whole, "\n") != strings.Join(chunked, "\n") || strings.Join(wc, "\n") != strings.Join(cc, "\n") {
			t.Fatalf("chunked reads differ:\n%q\n%q", whole, chunked)
		}
		// Nor does reading each event's data into a slice of its own,
		// kept while the reader goes on.
		owned, oc, _ := parseWith(t, &randomChunks{src: in, rng: rand.New(rand.NewPCG(seed, 3))}, 16, true, 0)
		if strings.Join(whole, "\n") != strings.Join(owned, "\n") || strings.Join(wc, "\n") != strings.Join(oc, "\n") {
			t.Fatalf("data of their own differ:\n%q\n%q", whole, owned)
		}
		// Nor reading every line through readLine and fieldLine
		// (never lines), the data the reader's or the caller's.
		for i, own := range []bool{false, true} {
			slow, slc, _ := parseSlow(t, &randomChunks{src: in, rng: rand.New(rand.NewPCG(seed, 5+uint64(i)))}, 16, own, 0)
			if strings.Join(whole, "\n") != strings.Join(slow, "\n") || strings.Join(wc, "\n") != strings.Join(slc, "\n") {
				t.Fatalf("line by line (own %v) differs:\n%q\n%q", own, whole, slow)
			}
		}
		// Nor reading through a small buffer (8 – 63 bytes: bytes
		// moved, CRs carried and lines cut in pieces all the time).
		small, sc, _ := parseWith(t, &randomChunks{src: in, rng: rand.New(rand.NewPCG(seed, 4))}, 16, true, 8+int(seed%56))
		if strings.Join(whole, "\n") != strings.Join(small, "\n") || strings.Join(wc, "\n") != strings.Join(sc, "\n") {
			t.Fatalf("small buffers differ:\n%q\n%q", whole, small)
		}
		// Events written from any values come back as they were.
		values := bytes.Split(in, []byte{0})
		stream, want := encodeEvents(values)
		want = append(want, fmt.Sprintf(`end EOF last="%d" retry=0s,false`, len(values)-1))
		got, _, _ := parseAll(t, &randomChunks{src: stream, rng: rand.New(rand.NewPCG(seed, 2))}, 0)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("round trip:\ngot  %q\nwant %q", got, want)
		}
	})
}

// benchStream builds about 1 MiB of events with 500-byte data lines.
func benchStream(withFields bool) []byte {
	payload := `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.output.streaming","event_id":"evt_8a3f5b22c91e4d7a","session_id":"sess_2c91a7","timestamp":"2026-05-24T14:22:11.342Z","producer":{"agent_id":"retirement-planner"},"summary_normal":"`
	payload += strings.Repeat("words ", (498-len(payload))/6)
	payload += strings.Repeat(".", 498-len(payload)) + `"}`
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		if withFields {
			fmt.Fprintf(&b, "event: aaep.event\nid: evt_%016x\n", i)
		}
		b.WriteString("data: ")
		b.WriteString(payload)
		b.WriteString("\n\n")
		if i%100 == 0 {
			b.WriteString(": heartbeat\n\n")
		}
	}
	return b.Bytes()
}

func BenchmarkSSEReader(b *testing.B) {
	for _, bc := range []struct {
		name   string
		fields bool
		own    bool // each event's data a slice of its own, as sseConn reads
	}{{"legacy", false, false}, {"spec", true, false}, {"spec-own", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			stream := benchStream(bc.fields)
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			src := bytes.NewReader(stream)
			for b.Loop() {
				src.Reset(stream)
				rd := NewSSEReader(src)
				rd.own = bc.own
				for {
					ev, err := rd.Next()
					if err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
					if len(ev.Data) != 500 {
						b.Fatalf("data of %d bytes", len(ev.Data))
					}
				}
			}
		})
	}
}

// Reading an event with an id of its own allocates nothing an event: the
// ids are cut from blocks of the reader's (each id was a new string
// before, one allocation an event), and each keeps its value.
func TestSSEReaderIDAllocations(t *testing.T) {
	const n = 1000
	var b bytes.Buffer
	for i := range n + 1 {
		fmt.Fprintf(&b, "id: evt_%016x\ndata: {}\n\n", i)
	}
	rd := NewSSEReader(&b)
	ids := make([]string, 0, n+1)
	next := func() {
		ev, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.ID)
	}
	next()
	if a := testing.AllocsPerRun(n-1, next); a > 0.1 {
		t.Errorf("reading an event with a new id allocates %.2f times, want about none", a)
	}
	for i, id := range ids {
		if want := fmt.Sprintf("evt_%016x", i); id != want {
			t.Fatalf("id %d is %q, want %q", i, id, want)
		}
	}
	if rd.LastEventID() != ids[len(ids)-1] {
		t.Errorf("last event ID %q, want %q", rd.LastEventID(), ids[len(ids)-1])
	}
}

// A reader whose events' data is the caller's (as sseConn reads) gives
// each event a slice of its own, made to its size: the data read earlier
// stays as it was, and an event costs one allocation, where the conn
// copied every frame out of the reader's buffer before.
func TestSSEReaderOwnData(t *testing.T) {
	const n = 500
	var b bytes.Buffer
	for i := range n + 1 {
		if i%7 == 0 {
			fmt.Fprintf(&b, "data: {\"n\":%d,\ndata: \"two\":\"lines\"}\n\n", i)
		} else {
			fmt.Fprintf(&b, "id: %d\ndata: {\"n\":%d}\n\n", i, i)
		}
	}
	rd := NewSSEReader(&b)
	rd.own = true
	data := make([][]byte, 0, n+1)
	next := func() {
		ev, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, ev.Data)
	}
	next()
	if a := testing.AllocsPerRun(n-1, next); a > 1.2 {
		t.Errorf("reading an event allocates %.2f times, want about 1 (its data)", a)
	}
	for i, d := range data {
		want := fmt.Sprintf(`{"n":%d}`, i)
		if i%7 == 0 {
			want = fmt.Sprintf("{\"n\":%d,\n\"two\":\"lines\"}", i)
		}
		if string(d) != want {
			t.Fatalf("event %d's data is %q, want %q", i, d, want)
		}
	}
}

// The reader counts the reads that brought bytes, so that sseConn stamps
// the frames one read brought with one reading of the clock.
func TestSSEReaderCountsReads(t *testing.T) {
	src := &chunks{parts: []string{"data: a\n\ndata: b\n\nda", "ta: c\n\n", "", "data: d\n\n"}}
	rd := NewSSEReader(src)
	for _, want := range []struct {
		data  string
		reads int
	}{{"a", 1}, {"b", 1}, {"c", 2}, {"d", 3}} {
		ev, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if string(ev.Data) != want.data || rd.reads != want.reads {
			t.Fatalf("event %q after %d reads, want %q after %d", ev.Data, rd.reads, want.data, want.reads)
		}
	}
}

// chunks reads its parts one a call; an empty part is a read of nothing.
type chunks struct{ parts []string }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	if n < len(c.parts[0]) {
		c.parts[0] = c.parts[0][n:]
		return n, nil
	}
	c.parts = c.parts[1:]
	return n, nil
}

// knownField, which spares the usual lines the search for their colon,
// says what the search says of every line it knows, and knows no other.
func TestKnownFieldAsSearched(t *testing.T) {
	for _, line := range []string{
		"data:", "data: x", "data:x:y", "data", "dat:", "datum: x", "Data: x",
		"id:", "id: 7", "id", "idx: 7", "i:",
		"event:", "event: aaep.event", "events: x", "event",
		":data: x", "", "retry: 10",
	} {
		f, value, colon := knownField([]byte(line))
		if colon < 0 {
			if c := strings.IndexByte(line, ':'); c > 0 && fieldOf([]byte(line[:c])) != fieldIgnore && fieldOf([]byte(line[:c])) != fieldRetry {
				t.Errorf("%q: not known, but it is a %v line", line, fieldOf([]byte(line[:c])))
			}
			continue
		}
		c := strings.IndexByte(line, ':')
		if colon != c || f != fieldOf([]byte(line[:c])) || string(value) != line[c+1:] {
			t.Errorf("%q: field %v, value %q, colon %d; the search says %v, %q, %d", line, f, value, colon, fieldOf([]byte(line[:c])), line[c+1:], c)
		}
	}
}

// A reader whose events' data is the caller's (own, as sseConn reads)
// gives every event a slice of its own, never a part of its read buffer:
// a string kept from an event's data keeps that event's bytes alive, not
// a block of the stream. Events kept while the reader goes on keep their
// data, over buffers of 64, 256, 1000 bytes and 64 KiB, and a caller
// appending to one event's data writes over nothing of the stream.
func TestSSEReaderDataIsItsOwn(t *testing.T) {
	const n = 2000
	var b bytes.Buffer
	for i := range n {
		switch {
		case i%7 == 0:
			fmt.Fprintf(&b, "data: {\"n\":%d,\ndata: \"two\":\"lines\"}\n\n", i)
		case i%11 == 0:
			fmt.Fprintf(&b, ": heartbeat %d\nid: %d\ndata: {\"n\":%d,\"pad\":%q}\n\n", i, i, i, strings.Repeat("x", i%300))
		default:
			fmt.Fprintf(&b, "id: %d\nevent: e\ndata: {\"n\":%d}\n\n", i, i)
		}
	}
	want := func(i int) string {
		switch {
		case i%7 == 0:
			return fmt.Sprintf("{\"n\":%d,\n\"two\":\"lines\"}", i)
		case i%11 == 0:
			return fmt.Sprintf("{\"n\":%d,\"pad\":%q}", i, strings.Repeat("x", i%300))
		}
		return fmt.Sprintf(`{"n":%d}`, i)
	}
	for _, size := range []int{0, 64, 256, 1000} {
		rd := NewSSEReader(iotest.HalfReader(bytes.NewReader(b.Bytes())))
		rd.own, rd.bufSize = true, size
		var kept [][]byte
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.Data) > 0 && cap(ev.Data) > 0 {
				// Within the read buffer's bytes, or reaching into them?
				d0 := uintptr(unsafe.Pointer(unsafe.SliceData(ev.Data)))
				b0 := uintptr(unsafe.Pointer(unsafe.SliceData(rd.buf)))
				if d0 < b0+uintptr(cap(rd.buf)) && b0 < d0+uintptr(cap(ev.Data)) {
					t.Fatalf("buffer %d: event %d's data lies in the read buffer", size, len(kept))
				}
			}
			// Appending to it must not write into the buffer.
			_ = append(ev.Data, "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"...)
			kept = append(kept, ev.Data)
		}
		if len(kept) != n {
			t.Fatalf("buffer %d: %d events, want %d", size, len(kept), n)
		}
		for i, d := range kept {
			if string(d) != want(i) {
				t.Fatalf("buffer %d: event %d's data is %q, want %q", size, i, d, want(i))
			}
		}
	}
}
