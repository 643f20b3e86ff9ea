package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// corpus returns n valid events of about 500 bytes, spread over sessions
// sessions, each session in order: started, then tool and output events.
func corpus(n, sessions int) [][]byte {
	out := make([][]byte, 0, n)
	seq := make([]int, sessions)
	for i := 0; i < n; i++ {
		s := i % sessions
		var body string
		switch {
		case seq[s] == 0:
			body = `"type":"aaep:agent.session.started","summary_terse":"Started.","summary_normal":"Research Assistant is looking up the quarterly figures you asked for.","request_text":"Summarize the quarterly figures."`
		case seq[s]%2 == 1:
			body = `"type":"aaep:agent.tool.invoked","tool":"fetch_report","tool_call_id":"call_` + fmt.Sprint(i) + `","args_summary":"quarter: Q3, region: EMEA","risk_level":"low","irreversible":false,"summary_terse":"Fetching.","summary_normal":"Fetching the Q3 report for EMEA."`
		default:
			body = `"type":"aaep:agent.output.streaming","chunk":"Revenue grew by four percent over the quarter, driven by services. ","position":0,"complete":false,"coalesce_hint":"sentence","output_id":"out_` + fmt.Sprint(i) + `","content_type":"text/plain","language":"en-US"`
		}
		ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0",%s,"event_id":"evt_0000%012x","session_id":"sess_0000%08x","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant","agent_version":"2.3.1"},"urgency":"normal","localization_hints":{"primary_language":"en-US","text_direction":"ltr"}}`,
			body, i, s, seq[s])
		seq[s]++
		out = append(out, []byte(ev))
	}
	return out
}

// benchListener is the real listener with its output discarded.
func benchListener() *listener {
	tio, _, _, _ := term.Test()
	o := &options{IO: tio, Verbosity: "normal", Now: time.Now, ReorderWait: 750 * time.Millisecond}
	out := line.NewWriter(io.Discard, io.Discard, line.WriterOptions{Location: time.UTC})
	l := &listener{o: o, out: out, notes: make(chan note, 64)}
	l.ann = announce.New(announce.Config{Verbosity: o.Verbosity}, out)
	l.eng = session.New(session.Config{ReorderWait: o.ReorderWait}, l)
	return l
}

// BenchmarkPipeline measures the whole listener path for one frame: decode,
// full validation, dedupe, reorder, lifecycle, wording and a line written to
// a discarding writer. The stage benchmarks below measure prefixes of it.
func BenchmarkPipeline(b *testing.B) {
	evs := corpus(1<<16, 512)
	var size int
	for _, e := range evs {
		size += len(e)
	}
	b.Run("decode", func(b *testing.B) {
		var d protocol.Decoder
		b.SetBytes(int64(size / len(evs)))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := d.Decode(evs[i%len(evs)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode+engine", func(b *testing.B) {
		var d protocol.Decoder
		eng := session.New(session.Config{}, discardOutput{})
		now := time.Now()
		b.SetBytes(int64(size / len(evs)))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%len(evs) == 0 && i > 0 {
				eng = session.New(session.Config{}, discardOutput{}) // a replayed lap is not a duplicate
			}
			ev, err := d.Decode(evs[i%len(evs)])
			if err != nil {
				b.Fatal(err)
			}
			eng.Handle(ev, now)
		}
	})
	b.Run("full", func(b *testing.B) {
		l := benchListener()
		frames := make([]transport.Frame, len(evs))
		for i, e := range evs {
			frames[i] = transport.Frame{Data: e}
		}
		b.SetBytes(int64(size / len(evs)))
		b.ReportAllocs()
		cpu0 := cpuTime()
		for i := 0; b.Loop(); i++ {
			if i%len(frames) == 0 && i > 0 {
				// A new lap replays the corpus: start a fresh engine so it is
				// not dropped as duplicates.
				l.eng = session.New(session.Config{}, l)
			}
			l.frame(frames[i%len(frames)])
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		// Processor time counts every thread of the process (the garbage
		// collector too) but not time spent waiting for a busy machine.
		b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
	})
}

// cpuTime is the user and system time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type discardOutput struct{}

func (discardOutput) Deliver(session.Delivery)    {}
func (discardOutput) Diagnose(session.Diagnostic) {}

// BenchmarkMemory pushes 10 million events through the full listener path,
// across 100,000 sessions, and reports the live heap after the first million
// events (warm) and at the end, and the growth between the two.
func BenchmarkMemory(b *testing.B) {
	const total, sessions = 10_000_000, 100_000
	l := benchListener()
	evs := corpus(1<<17, sessions)
	heap := func() float64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc) / (1 << 20)
	}
	var warm, end float64
	for b.Loop() {
		for i := 0; i < total; i++ {
			e := evs[i%len(evs)]
			if i%len(evs) == 0 {
				// Every lap: new event and session IDs, so every event is
				// new and sessions keep arriving.
				for _, e := range evs {
					setLap(e, i/len(evs))
				}
			}
			if i == 1_000_000 {
				warm = heap()
			}
			l.frame(transport.Frame{Data: e})
		}
		end = heap()
	}
	b.ReportMetric(warm, "warm-heap-MB")
	b.ReportMetric(end, "end-heap-MB")
	b.ReportMetric(end-warm, "growth-MB")
}

// setLap writes lap as the first four hex digits of the event and session IDs
// of a corpus event.
func setLap(e []byte, lap int) {
	const hex = "0123456789abcdef"
	for _, key := range []string{`"evt_`, `"sess_`} {
		i := bytes.Index(e, []byte(key)) + len(key)
		v := lap
		for d := 3; d >= 0; d-- {
			e[i+d] = hex[v&0xf]
			v >>= 4
		}
	}
}
