package acp_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/acptest"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// benchRun is a scripted agent behind a bridge, heard through the real
// engine and announcer into plain lines that are looked at and dropped:
// nothing grows with the run but what the pipeline itself keeps.
type benchRun struct {
	bridge *acp.Bridge
	c      *subscriber.Client
	ready  chan struct{} // closed at the agent's first line
	done   chan struct{} // closed at the task's end
	sample chan struct{} // a permission request was said: time to sample the heap

	mu        sync.Mutex // guards the fields below (the reading goroutine and Write)
	latencies []time.Duration
	lines     int
	pending   []byte // a line not yet ended
	readyOnce sync.Once
	doneOnce  sync.Once
}

var (
	markReady = []byte("is ready, in mode")
	markDone  = []byte("is done and waiting for you.")
	markAsk   = []byte("Confirmation needed")
	markSent  = []byte(acptest.SentMark)
)

// Write takes the lines the announcer's writer flushes.
func (r *benchRun) Write(p []byte) (int, error) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, p...)
	for {
		i := bytes.IndexByte(r.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		l := r.pending[:i]
		r.lines++
		switch {
		case bytes.Contains(l, markAsk):
			if j := bytes.Index(l, markSent); j >= 0 {
				digits := l[j+len(markSent):]
				k := 0
				for k < len(digits) && digits[k] >= '0' && digits[k] <= '9' {
					k++
				}
				if sent, err := strconv.ParseInt(string(digits[:k]), 10, 64); err == nil {
					r.latencies = append(r.latencies, now.Sub(time.Unix(0, sent)))
				}
			}
			select {
			case r.sample <- struct{}{}:
			default:
			}
		case bytes.Contains(l, markReady):
			r.readyOnce.Do(func() { close(r.ready) })
		case bytes.Contains(l, markDone):
			r.doneOnce.Do(func() { close(r.done) })
		}
		r.pending = append(r.pending[:0], r.pending[i+1:]...)
	}
}

// startBench starts the agent playing script and answers every
// permission request accept as soon as it is offered.
func startBench(b *testing.B, script string) *benchRun {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &benchRun{ready: make(chan struct{}), done: make(chan struct{}), sample: make(chan struct{}, 1)}
	r.bridge = acp.New(acp.Options{Name: "code", Dir: b.TempDir(), Env: append(os.Environ(), acptest.Env+"="+script)})
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	r.c = subscriber.Start(ctx, "acp:'"+exe+"' -test.run=^$ -test.bench=^$", subscriber.Config{
		Identity:  session.Identity{ID: "acp-bench", Name: "acp-bench", Version: "1"},
		Terms:     session.Terms{CanConfirm: true},
		Transport: transport.Options{ACP: r.bridge.Dial},
	})
	w := line.NewWriter(r, r, line.WriterOptions{NoTime: true})
	ann := announce.New(announce.Config{}, w)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		answered := map[int]bool{}
		for {
			u, err := r.c.Next(ctx)
			if err != nil {
				return
			}
			switch u.Kind {
			case subscriber.KindDelivery:
				ann.Deliver(u.Delivery)
				if p := u.Delivery.Prompt; p != nil && p.Kind() == session.AsksConfirmation && !answered[p.Number] {
					answered[p.Number] = true
					go func() { _ = r.c.Confirm(ctx, p.Number, protocol.DecisionAccept) }()
				}
			case subscriber.KindDiagnostic:
				ann.Diagnose(u.Diagnostic)
			case subscriber.KindBreak:
				ann.Flush(u.At)
			}
			w.Flush()
		}
	}()
	b.Cleanup(func() {
		r.c.Close()
		cancel()
		<-ended
	})
	select {
	case <-r.ready:
	case <-ended:
		b.Fatal("the run ended before the agent was ready")
	}
	return r
}

// cpuTime is the CPU this process has used: the bridge, the engine and
// the announcer; the agent is another process.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// Each op is one agent_message_chunk from an agent that writes them as
// fast as it can, through the bridge, the engine and the announcer to a
// line; cpu-ns/update is this process's CPU per update.
func BenchmarkBridgeUpdate(b *testing.B) {
	r := startBench(b, acptest.FloodScript(b.N))
	cpu := cpuTime(b)
	b.ResetTimer()
	if err := r.bridge.Tell("flood"); err != nil {
		b.Fatal(err)
	}
	<-r.done
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/update")
}

// One run of an agent streaming acptest.Rate updates a second with a
// permission request a second, for AAEP_BENCH_SECONDS (10 unless set; 60
// for docs/PERFORMANCE.md), each request accepted as soon as it is said:
// this process's CPU per update, the time from the agent writing a
// request to its line (p50, p99, max), and the live heap at the first,
// middle and last request and its largest. The engine's window of event
// IDs seen (session.Config.DedupeWindow, 65,536) fills in the first 33 s
// at this rate: from then on the heap stays flat.
func BenchmarkBridgePaced(b *testing.B) {
	seconds := 10
	if s, err := strconv.Atoi(os.Getenv("AAEP_BENCH_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	for range b.N {
		r := startBench(b, acptest.PacedScript(time.Duration(seconds)*time.Second))
		var heap []uint64
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var m runtime.MemStats
			for {
				select {
				case <-r.sample:
					runtime.GC()
					runtime.ReadMemStats(&m)
					heap = append(heap, m.HeapAlloc)
				case <-r.done:
					return
				}
			}
		}()
		cpu := cpuTime(b)
		if err := r.bridge.Tell("stream"); err != nil {
			b.Fatal(err)
		}
		<-r.done
		<-sampled
		used := cpuTime(b) - cpu
		r.mu.Lock()
		lat := slices.Clone(r.latencies)
		r.mu.Unlock()
		if len(lat) < seconds || len(heap) < 2 {
			b.Fatalf("%d requests said, %d heap samples, in %d s", len(lat), len(heap), seconds)
		}
		slices.Sort(lat)
		pct := func(p float64) float64 {
			return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
		}
		b.ReportMetric(float64(used)/float64(seconds*acptest.Rate), "cpu-ns/update")
		b.ReportMetric(pct(0.50), "p50-ms")
		b.ReportMetric(pct(0.99), "p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
		b.ReportMetric(float64(heap[0])/(1<<20), "heap-first-MB")
		b.ReportMetric(float64(heap[len(heap)/2])/(1<<20), "heap-half-MB")
		b.ReportMetric(float64(heap[len(heap)-1])/(1<<20), "heap-last-MB")
		b.ReportMetric(float64(slices.Max(heap))/(1<<20), "heap-max-MB")
	}
}
