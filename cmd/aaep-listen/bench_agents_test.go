package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// alarmProducer is a producer (deployed layout, GET /events) that sends a
// critical event each time it is told to, its summary "Alarm N." carrying
// the time it was sent, in nanoseconds.
type alarmProducer struct {
	send chan time.Time
	srv  *httptest.Server
}

func newAlarmProducer(tb testing.TB, agent string) *alarmProducer {
	p := &alarmProducer{send: make(chan time.Time)}
	var served atomic.Int32
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" || served.Add(1) > 1 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		write := func(ev *protocol.Event) {
			fmt.Fprintf(w, "data: %s\n\n", wireEvent(ev, false))
			f.Flush()
		}
		start := &protocol.Event{Type: protocol.TypeSessionStarted, EventID: "start", SessionID: "alarm", HasSeq: true,
			Producer: protocol.Producer{AgentID: agent}, Urgency: protocol.UrgencyNormal, Timestamp: time.Now()}
		write(start)
		for seq := int64(1); ; seq++ {
			select {
			case at := <-p.send:
				write(&protocol.Event{Type: protocol.TypeProgressUpdated, EventID: fmt.Sprintf("alarm_%d", seq), SessionID: "alarm",
					HasSeq: true, Seq: seq, Producer: protocol.Producer{AgentID: agent}, Urgency: protocol.UrgencyCritical,
					SummaryNormal: protocol.Text(fmt.Sprintf("Alarm %d.", at.UnixNano())), Timestamp: at})
			case <-r.Context().Done():
				return
			}
		}
	}))
	tb.Cleanup(p.srv.Close)
	return p
}

// alarmWatch is the listener's standard output: it finds each "Alarm N."
// line and tells how long after N it was written.
type alarmWatch struct {
	seen  chan time.Duration
	mu    sync.Mutex
	lines int // lines written, all agents'
}

func (w *alarmWatch) Write(p []byte) (int, error) {
	now := time.Now()
	w.mu.Lock()
	w.lines += bytes.Count(p, []byte{'\n'})
	w.mu.Unlock()
	eachAlarm(p, func(sent time.Time) { w.seen <- now.Sub(sent) })
	return len(p), nil
}

// floodProducer serves n events as fast as they are taken (producer.Flood),
// once; later requests are told the stream is over.
func floodProducer(tb testing.TB, n int) string { return floodProducerAfter(tb, n, "") }

// floodProducerAfter is floodProducer whose stream begins with preamble
// (SSE fields without data, such as "retry: 10\n\n"), then the flood.
func floodProducerAfter(tb testing.TB, n int, preamble string) string {
	var served atomic.Int32
	flood := producer.FloodHandler(n, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" || served.Add(1) > 1 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		flood.ServeHTTP(&prefixed{w, preamble}, r)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// runListener runs aaep-listen in this process with args, its lines going
// to out; stop ends it and waits.
func runListener(tb testing.TB, out, errOut io.Writer, args ...string) (stop func()) {
	return runListenerBatch(tb, 0, out, errOut, args...)
}

// runListenerBatch is runListener with options.batchMax set to batch (0
// for the default).
func runListenerBatch(tb testing.TB, batch int, out, errOut io.Writer, args ...string) (stop func()) {
	tio, _, _, _ := term.Test()
	tio.Out, tio.ErrOut = out, errOut
	o, err := parseFlags(args, tio, noEnv)
	if err != nil {
		tb.Fatal(err)
	}
	o.batchMax = batch
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- listen(ctx, o) }()
	return func() { cancel(); <-done }
}

// BenchmarkFloodedNeighbour floods one agent (producer.Flood, as fast as
// the listener takes it) and times each critical event of another agent
// from its producer to its line: p50 and p99 in milliseconds. Each
// iteration is one critical event, sent once the one before was written.
func BenchmarkFloodedNeighbour(b *testing.B) {
	for _, n := range []int{8, 64, 512} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			benchFloodedNeighbour(b, n)
		})
	}
}

func benchFloodedNeighbour(b *testing.B, batch int) {
	alarm := newAlarmProducer(b, "alarm")
	watch := &alarmWatch{seen: make(chan time.Duration, 1)}
	stop := runListenerBatch(b, batch, watch, io.Discard, "--plain", "--no-sign", "--layout", "legacy", "--no-time",
		"flood="+floodProducer(b, 20_000_000), "alarm="+alarm.srv.URL)
	defer stop()
	for { // the flood is running once its lines come
		watch.mu.Lock()
		n := watch.lines
		watch.mu.Unlock()
		if n > 10_000 {
			break
		}
		runtime.Gosched()
	}
	var lat []time.Duration
	for b.Loop() {
		alarm.send <- time.Now()
		lat = append(lat, <-watch.seen)
	}
	b.StopTimer()
	watch.mu.Lock()
	flooded := watch.lines
	watch.mu.Unlock()
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(flooded), "lines")
}

// BenchmarkManyAgents runs 50 agents, each sending AAEP_BENCH_RATE events
// a second (default 1,000) for AAEP_BENCH_SECONDS (default 3; 30 for the
// figures in docs/PERFORMANCE.md), one in ten critical, into one listener.
// It reports the heap in use at the start, middle and end (after a
// garbage collection) and fails when a critical event was not announced.
func BenchmarkManyAgents(b *testing.B) {
	const agents = 50
	rate, seconds := envInt("AAEP_BENCH_RATE", 1000), envInt("AAEP_BENCH_SECONDS", 3)
	// AAEP_BENCH_NAMED=1: no labels; every producer names its agent, so
	// every line's name is decided from untrusted input.
	named := os.Getenv("AAEP_BENCH_NAMED") != ""
	for b.Loop() {
		var producers []*pacedProducer
		args := []string{"--plain", "--no-sign", "--layout", "legacy", "--no-time"}
		for i := range agents {
			p := newPacedProducer(b, fmt.Sprintf("agent%d", i), rate, seconds, named)
			producers = append(producers, p)
			if named { // each line's name is decided from the producer's (subscriber.Group.Display)
				args = append(args, p.srv.URL)
			} else {
				args = append(args, fmt.Sprintf("a%d=%s", i, p.srv.URL))
			}
		}
		count := &criticalCount{word: "CRITICAL "}
		heap := func() float64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return float64(m.HeapInuse) / (1 << 20)
		}
		diags := &criticalCount{word: "warning"}
		stop := runListener(b, count, diags, args...)
		start := time.Now()
		for _, p := range producers {
			close(p.start)
		}
		h0 := heap()
		time.Sleep(time.Duration(seconds) * time.Second / 2) // the middle of the run, for the heap figure
		h1 := heap()
		if f := os.Getenv("AAEP_BENCH_HEAPPROFILE"); f != "" {
			if w, err := os.Create(f); err == nil {
				pprof.WriteHeapProfile(w)
				w.Close()
			}
		}
		for _, p := range producers {
			<-p.done
		}
		sent := 0
		for _, p := range producers {
			sent += p.critical
		}
		for count.get() < sent && time.Since(start) < time.Duration(seconds+60)*time.Second {
			time.Sleep(10 * time.Millisecond)
		}
		h2 := heap()
		if f := os.Getenv("AAEP_BENCH_HEAPPROFILE"); f != "" {
			if w, err := os.Create(f + ".end"); err == nil {
				pprof.WriteHeapProfile(w)
				w.Close()
			}
		}
		stop()
		if got := count.get(); got != sent {
			b.Fatalf("%d critical events announced of %d sent", got, sent)
		}
		b.ReportMetric(h0, "heap-start-MiB")
		b.ReportMetric(h1, "heap-mid-MiB")
		b.ReportMetric(h2, "heap-end-MiB")
		b.ReportMetric(float64(sent), "critical")
		b.ReportMetric(float64(diags.get()), "diagnostics")
		b.ReportMetric(float64(agents*rate*seconds)/time.Since(start).Seconds(), "events/s")
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// criticalCount counts the times word is written (CRITICAL lines).
type criticalCount struct {
	word string
	mu   sync.Mutex
	n    int
}

func (c *criticalCount) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.n += bytes.Count(p, []byte(c.word))
	c.mu.Unlock()
	return len(p), nil
}

func (c *criticalCount) get() int { c.mu.Lock(); defer c.mu.Unlock(); return c.n }

// pacedProducer sends rate events a second for seconds, in ticks of 10 ms,
// one in ten critical, in 16 sessions, then ends its stream.
type pacedProducer struct {
	srv      *httptest.Server
	start    chan struct{}
	done     chan struct{}
	critical int
}

func newPacedProducer(tb testing.TB, agent string, rate, seconds int, named bool) *pacedProducer {
	who := fmt.Sprintf(`"agent_id":%q`, agent)
	if named {
		who += fmt.Sprintf(`,"agent_name":"Agent %s"`, strings.TrimPrefix(agent, "agent"))
	}
	p := &pacedProducer{start: make(chan struct{}), done: make(chan struct{})}
	var served atomic.Int32
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" || served.Add(1) > 1 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		defer close(p.done)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		f.Flush()
		<-p.start
		seq := map[string]int64{}
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var buf strings.Builder
		for i, n := 0, rate*seconds; i < n; {
			<-tick.C
			for k := 0; k < rate/100 && i < n; k, i = k+1, i+1 {
				s := fmt.Sprintf("sess_%s%d", agent, i%16)
				typ, urgency, body := protocol.TypeProgressUpdated, "normal", fmt.Sprintf(`"progress":{"step":%d},"summary_normal":"Step %d."`, i, i)
				if seq[s] == 0 {
					typ, body = protocol.TypeSessionStarted, `"summary_normal":"Started."`
				}
				if i%10 == 9 {
					urgency = "critical"
					p.critical++
				}
				fmt.Fprintf(&buf, `data: {"@context":%q,"aaep_version":%q,"type":%q,"event_id":"evt_%s%d","session_id":%q,"sequence_number":%d,`+
					`"timestamp":%q,"producer":{%s},"urgency":%q,%s}`+"\n\n",
					protocol.ContextURL, protocol.Version, typ, agent, i, s, seq[s], time.Now().UTC().Format(time.RFC3339Nano), who, urgency, body)
				seq[s]++
			}
			io.WriteString(w, buf.String())
			buf.Reset()
			f.Flush()
		}
	}))
	tb.Cleanup(p.srv.Close)
	return p
}

// prefixed writes its preamble before the first bytes written to it.
type prefixed struct {
	http.ResponseWriter
	preamble string
}

func (p *prefixed) Write(b []byte) (int, error) {
	if pre := p.preamble; pre != "" {
		p.preamble = ""
		if _, err := io.WriteString(p.ResponseWriter, pre); err != nil {
			return 0, err
		}
	}
	return p.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController flush the stream.
func (p *prefixed) Unwrap() http.ResponseWriter { return p.ResponseWriter }
