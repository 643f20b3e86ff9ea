package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
)

// BenchmarkAgentsMemory runs AAEP_BENCH_AGENTS agents (200) into one
// listener, each sending AAEP_BENCH_EVENTS flood events (20,000: more than
// the 16,384 event IDs each agent used to remember at least) as fast as
// the listener takes them, then holding its stream open. Once every event
// is written, it reports the heap in use after a garbage collection, with
// every agent still connected (and a heap profile to the file
// AAEP_BENCH_HEAPPROFILE names).
func BenchmarkAgentsMemory(b *testing.B) {
	agents, events := envInt("AAEP_BENCH_AGENTS", 200), envInt("AAEP_BENCH_EVENTS", 20_000)
	for b.Loop() {
		release := make(chan struct{})
		args := []string{"--plain", "--no-sign", "--layout", "legacy", "--no-time"}
		for k := range agents {
			args = append(args, fmt.Sprintf("a%d=%s", k, heldFlood(b, events, release)))
		}
		w := &lineCount{want: agents * events, done: make(chan struct{})}
		stop := runListener(b, w, io.Discard, args...)
		<-w.done
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if f := os.Getenv("AAEP_BENCH_HEAPPROFILE"); f != "" {
			if w, err := os.Create(f); err == nil {
				pprof.WriteHeapProfile(w)
				w.Close()
			}
		}
		close(release)
		stop()
		b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
		b.ReportMetric(float64(agents), "agents")
	}
}

// heldFlood serves n flood events (producer.Flood, 16 sessions) once, then
// holds the stream open until release is closed.
func heldFlood(tb testing.TB, n int, release <-chan struct{}) string {
	return streamOnce(tb, func(w http.ResponseWriter, r *http.Request) {
		if err := producer.Flood(w, n, 16); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
}

// lineCount closes done once want lines are written.
type lineCount struct {
	mu   sync.Mutex
	n    int
	want int
	done chan struct{}
}

func (c *lineCount) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	before := c.n
	c.n += bytes.Count(p, []byte{'\n'})
	if before < c.want && c.n >= c.want {
		close(c.done)
	}
	return len(p), nil
}
