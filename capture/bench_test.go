package capture

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// writeSessions writes a capture of n events to w: sessions of 10 events
// each (started, state, two tool calls, three output chunks, completed),
// eight sessions interleaved, every event about 400 bytes.
func writeSessions(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintln(bw, `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","redacted":true}`)
	const perSession, open = 10, 8
	base := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
	for i := 0; i < n; i++ {
		slot := i % open
		round := i / open
		sess := round/perSession*open + slot
		step := round % perSession
		ts := base.Add(time.Duration(i) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
		var body string
		switch step {
		case 0:
			body = `"type":"aaep:agent.session.started","summary_normal":"Research Assistant is looking up the quarterly figures."`
		case 1:
			body = `"type":"aaep:agent.state.changed","from_state":"idle","to_state":"thinking"`
		case 2, 4:
			body = fmt.Sprintf(`"type":"aaep:agent.tool.invoked","tool":"fetch","tool_call_id":"call_%d","summary_normal":"Fetching the report.","args_summary":"quarter: Q3, region: EMEA"`, step)
		case 3, 5:
			body = fmt.Sprintf(`"type":"aaep:agent.tool.completed","tool":"fetch","tool_call_id":"call_%d","status":"success"`, step-1)
		case 6, 7, 8:
			body = fmt.Sprintf(`"type":"aaep:agent.output.streaming","output_id":"out_1","position":%d,"chunk":"Revenue grew by four percent. ","complete":%v`, (step-6)*30, step == 8)
		default:
			body = `"type":"aaep:agent.session.completed","summary_normal":"Done."`
		}
		fmt.Fprintf(bw, `[%.6f,"i",{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%x","session_id":"sess_%x","sequence_number":%d,"timestamp":"%s","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant"},"urgency":"normal"}]`+"\n",
			float64(i)/1000, body, i, sess, step, ts)
	}
	return bw.Flush()
}

// BenchmarkCheck reads and checks a capture file of a million events, and reports events per second and the heap in use at the
// end (flat: the checker's memory is bounded).
func BenchmarkCheck(b *testing.B) {
	const n = 1_000_000
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	path := filepath.Join(b.TempDir(), "million.aaep")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeSessions(f, n); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		c, err := NewChecker(CheckOptions{})
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		err = c.CheckAll(r, func(st Step) {
			if len(st.Violations) > 0 {
				b.Errorf("unexpected violation: %v", st.Violations[0])
			}
			count++
		})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
		if count != n || len(c.Finish()) != 0 {
			b.Fatalf("%d events checked", count)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(int64(ms.HeapInuse)-int64(base))/(1<<20), "heap-MB")
}

// BenchmarkWrite measures the capture writer with redaction on, to a
// discarding writer and to a file (read back whole): one Write call per line,
// every event kept.
func BenchmarkWrite(b *testing.B) {
	ev := []byte(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.tool.invoked","event_id":"evt_1","session_id":"sess_1","sequence_number":3,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant"},"urgency":"normal","tool":"fetch","tool_call_id":"call_1","summary_normal":"Fetching the report.","args_summary":"quarter: Q3, region: EMEA, token: abc123"}`)
	b.Run("discard", func(b *testing.B) {
		cw := &countWriter{}
		w, err := NewWriter(cw, Header{}, time.Now(), WriterOptions{Redactor: NewRedactor()})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(ev)))
		b.ReportAllocs()
		for b.Loop() {
			if err := w.Write(In, ev, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
		if cw.lines-1 != w.Count() { // the header is a line too
			b.Fatalf("%d lines for %d records", cw.lines, w.Count())
		}
		b.ReportMetric(float64(w.Count())/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("file", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "w.aaep")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		w, err := NewWriter(f, Header{}, time.Now(), WriterOptions{Redactor: NewRedactor()})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(ev)))
		for b.Loop() {
			if err := w.Write(In, ev, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		if n != w.Count() {
			b.Fatalf("%d records read back of %d written", n, w.Count())
		}
		b.ReportMetric(float64(w.Count())/b.Elapsed().Seconds(), "events/s")
	})
}

type countWriter struct{ lines int }

func (c *countWriter) Write(p []byte) (int, error) { c.lines++; return len(p), nil }
