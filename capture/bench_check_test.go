package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/aaep-term/aaep-term/internal/capturetest"
	"github.com/aaep-term/aaep-term/internal/gcpace"
	"github.com/aaep-term/aaep-term/internal/proctest"
)

// writeToolCapture writes a capture of n events (capturetest.ToolEvent) to w.
func writeToolCapture(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintln(bw, `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","redacted":true}`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(bw, "[%.6f,\"i\",%s]\n", float64(i)/1000, capturetest.ToolEvent(i))
	}
	return bw.Flush()
}

// BenchmarkCheck200k is `aaep-replay check` of a 200,000-event capture of
// 585-byte events (capturetest.ToolEvent): reading, full validation and
// every sequencing rule, as CheckSteps runs them for CheckFile. It reports events per second,
// and per second of processor time (the whole process's, both cores and
// the collector included), which a loaded machine disturbs less. The
// collector is paced as aaep-replay paces it (gcpace, unless GOGC is set).
func BenchmarkCheck200k(b *testing.B) {
	defer gcpace.FromEnv(os.Getenv).Stop()
	const n = 200_000
	path := filepath.Join(b.TempDir(), "200k.aaep")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeToolCapture(f, n); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	schemas, err := NewChecker(CheckOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := proctest.CPUTime()
	for b.Loop() {
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		c, err := NewChecker(CheckOptions{Schemas: schemas.o.Schemas})
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		if err := c.CheckSteps(r, func(*Step) { count++ }); err != nil {
			b.Fatal(err)
		}
		c.Finish()
		r.Close()
		if count != n {
			b.Fatalf("%d events checked of %d", count, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(n*b.N)/(proctest.CPUTime()-cpu0).Seconds(), "events/cpu-s")
}

// TestCheckMemoryFlat checks a session that never ends and never
// completes a tool call: the checker's heap after 170,000 events is no
// larger than after 70,000 (every table it keeps is full before), give or
// take 1 MB, and Finish says what it forgot.
func TestCheckMemoryFlat(t *testing.T) {
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	i := 0
	run := func(n int) {
		for ; i < n; i++ {
			body := fmt.Sprintf(`"type":"aaep:agent.tool.invoked","tool":"fetch","tool_call_id":"call_%d"`, i)
			if i == 0 {
				body = `"type":"aaep:agent.session.started"`
			}
			ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%x","session_id":"sess_1","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"summary_normal":"Hi."}`, body, i, i)
			c.Check(Record{Line: i + 2, HasT: true, Dir: In, Msg: []byte(ev)})
		}
	}
	run(70_000)
	before := heap()
	run(170_000)
	after := heap()
	t.Logf("heap after 70,000 events %.1f MB, after 170,000 %.1f MB", float64(before)/(1<<20), float64(after)/(1<<20))
	if after > before+1<<20 {
		t.Errorf("the checker's heap grew from %.1f MB to %.1f MB between 70,000 and 170,000 events", float64(before)/(1<<20), float64(after)/(1<<20))
	}
	vs := c.Finish()
	if len(vs) == 0 || vs[len(vs)-1].Rule != "open-tool-calls" {
		t.Fatalf("Finish says nothing of the tool calls forgotten: %v", vs)
	}
	t.Log(vs[len(vs)-1])
}

// BenchmarkReadCheckAll is the reading of BenchmarkCheck200k alone, as
// CheckSteps reads (the late checks left to it, the lines copied into
// shared blocks), of 20,000 of its records held in memory: splitting each
// record, its time, the copy of its line.
func BenchmarkReadCheckAll(b *testing.B) {
	var buf bytes.Buffer
	const n = 20_000
	if err := writeToolCapture(&buf, n); err != nil {
		b.Fatal(err)
	}
	in := buf.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			b.Fatal(err)
		}
		r.late, r.shareLines = true, true
		count := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			count++
		}
		if count != n {
			b.Fatalf("%d records read of %d", count, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/record")
}
