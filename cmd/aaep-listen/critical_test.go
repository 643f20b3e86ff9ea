package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/gcpace"
	"github.com/aaep-term/aaep-term/internal/ssefloor"
	"github.com/aaep-term/aaep-term/protocol"
)

// BenchmarkCriticalInPhase runs many agents into one listener, all sending
// in the same instants (ticks of 10 ms from one start), one event in ten
// critical, the critical ones spread over the agents so that each tick some
// agents' critical events meet the others' ordinary ones. It times each
// critical event from its producer's write to its line and reports p50, p99
// and the maximum in milliseconds. AAEP_BENCH_SECONDS sets the run's
// length (3 s). The collector is paced as the command paces it
// (gcpace, unless GOGC is set).
func BenchmarkCriticalInPhase(b *testing.B) {
	criticalInPhase(b, func(tb testing.TB, out, errOut io.Writer, urls []string) (stop func()) {
		args := []string{"--plain", "--no-sign", "--layout", "legacy", "--no-time"}
		for k, url := range urls {
			args = append(args, fmt.Sprintf("a%d=%s", k, url))
		}
		return runListener(tb, out, errOut, args...)
	})
}

// BenchmarkCriticalInPhaseFloor is BenchmarkCriticalInPhase with a minimal
// reader in the listener's place (minFanIn): what this machine allows at
// these loads, with nothing decoded, validated or ordered. Its p99 is the
// least any listener could reach here.
func BenchmarkCriticalInPhaseFloor(b *testing.B) { criticalInPhase(b, minFanIn) }

// criticalInPhase runs BenchmarkCriticalInPhase with listen reading the
// agents at urls, writing a line an event to out.
func criticalInPhase(b *testing.B, listen func(tb testing.TB, out, errOut io.Writer, urls []string) (stop func())) {
	defer gcpace.FromEnv(os.Getenv).Stop()
	for _, load := range []struct{ agents, rate int }{{200, 100}, {50, 1000}} {
		b.Run(fmt.Sprintf("agents=%d,rate=%d", load.agents, load.rate), func(b *testing.B) {
			seconds := envInt("AAEP_BENCH_SECONDS", 3)
			var all []time.Duration
			var cpu time.Duration
			sched := newSchedLatencies()
			for b.Loop() {
				urls, want, start := inPhaseProducers(b, load.agents, load.rate, seconds)
				w := &alarmTimes{want: want, done: make(chan struct{}), agents: load.agents, ready: make(chan struct{})}
				diags := &criticalCount{word: "warning"}
				stop := listen(b, w, diags, urls)
				select { // every agent connected, its first event told
				case <-w.ready:
				case <-time.After(60 * time.Second):
					w.mu.Lock()
					defer w.mu.Unlock()
					b.Fatalf("%d agents of %d ready", w.readyN, load.agents)
				}
				cpu0 := cpuTime()
				sched.start()
				start()
				select {
				case <-w.done:
				case <-time.After(time.Duration(seconds+60) * time.Second):
					b.Fatalf("%d critical lines of %d", len(w.times), want)
				}
				sched.stop()
				cpu += cpuTime() - cpu0
				stop()
				if n := diags.get(); n > 0 {
					b.Fatalf("%d warnings about valid events", n)
				}
				all = append(all, w.times...)
			}
			slices.Sort(all)
			at := func(q float64) float64 {
				return float64(all[min(len(all)-1, int(q*float64(len(all))))].Microseconds()) / 1000
			}
			b.ReportMetric(at(0.5), "p50-ms")
			b.ReportMetric(at(0.99), "p99-ms")
			b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "max-ms")
			b.ReportMetric(float64(len(all)), "critical")
			// The listener's work, which the load of the machine changes
			// less than the latencies: its CPU time per event (the
			// producers run in their own process unless
			// AAEP_BENCH_INPROCESS=1), and how long its goroutines waited
			// to run once ready (p99, runtime/metrics).
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*load.agents*load.rate*seconds), "cpu-µs/event")
			b.ReportMetric(sched.p99()*1e6, "sched-p99-µs")
		})
	}
}

// inPhaseProducers starts the agents' producers (inPhaseProducer) in a
// process of their own, as agents are: in the listener's, their 200
// goroutines and timers would share its scheduler and take turns with its
// goroutines in the very instants of the bursts. With AAEP_BENCH_INPROCESS=1
// they run in this process, as before. It returns their URLs, how many
// critical events they send together, and start, which starts them.
func inPhaseProducers(tb testing.TB, agents, rate, seconds int) (urls []string, critical int, start func()) {
	if os.Getenv("AAEP_BENCH_INPROCESS") == "1" {
		ch := make(chan struct{})
		for k := range agents {
			url, n := inPhaseProducer(tb, k, rate, seconds, ch)
			urls, critical = append(urls, url), critical+n
		}
		return urls, critical, func() { close(ch) }
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInPhaseProducers$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("AAEP_INPHASE_PRODUCERS=%d,%d,%d", agents, rate, seconds))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		in.Close() // the producers' process ends
		cmd.Wait()
	})
	lines := bufio.NewScanner(out)
	for len(urls) < agents && lines.Scan() {
		var url string
		var n int
		if _, err := fmt.Sscan(lines.Text(), &url, &n); err == nil {
			urls, critical = append(urls, url), critical+n
		}
	}
	if len(urls) < agents {
		tb.Fatalf("the producers' process gave %d URLs of %d: %v", len(urls), agents, lines.Err())
	}
	go io.Copy(io.Discard, out)
	return urls, critical, func() { fmt.Fprintln(in, "start") }
}

// TestInPhaseProducers is the producers' process of BenchmarkCriticalInPhase
// (inPhaseProducers): with AAEP_INPHASE_PRODUCERS=agents,rate,seconds it
// serves them, says each one's URL and number of critical events on a line,
// starts them at the line "start" on standard input and ends when that
// closes. Without the variable it does nothing.
func TestInPhaseProducers(t *testing.T) {
	var agents, rate, seconds int
	if _, err := fmt.Sscanf(os.Getenv("AAEP_INPHASE_PRODUCERS"), "%d,%d,%d", &agents, &rate, &seconds); err != nil {
		return
	}
	start := make(chan struct{})
	for k := range agents {
		url, n := inPhaseProducer(t, k, rate, seconds, start)
		fmt.Println(url, n)
	}
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() && lines.Text() != "start" {
	}
	close(start)
	for lines.Scan() {
	}
}

// inPhaseProducer serves agent k's events: first one saying "Ready.", its
// warm-up, then rate a second for seconds once start is closed, in ticks of
// 10 ms, 16 sessions; event i is critical when (i+k)%10 == 9, its summary
// "Alarm N." carrying the time it was written in nanoseconds. It returns its
// URL and how many critical events it sends.
func inPhaseProducer(tb testing.TB, k, rate, seconds int, start <-chan struct{}) (string, int) {
	n := rate * seconds
	critical := 0
	for i := range n {
		if (i+k)%10 == 9 {
			critical++
		}
	}
	agent := fmt.Sprintf("agent%d", k)
	url := streamOnce(tb, func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		// The warm-up: an agent's first event makes the listener check
		// its manifest, once, at its connection; the bursts come after.
		fmt.Fprintf(w, `data: {"@context":%q,"aaep_version":%q,"type":%q,"event_id":"evt_%sxw","session_id":"sess_%sxw","sequence_number":0,`+
			`"timestamp":%q,"producer":{"agent_id":%q},"urgency":"background","summary_normal":"Ready."}`+"\n\n",
			protocol.ContextURL, protocol.Version, protocol.TypeSessionStarted, agent, agent, time.Now().UTC().Format(time.RFC3339Nano), agent)
		f.Flush()
		<-start
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		var buf []byte
		for i := 0; i < n; {
			<-tick.C
			now := time.Now()
			for j := 0; j < max(1, rate/100) && i < n; j, i = j+1, i+1 {
				buf = appendInPhase(buf, agent, k, i, now)
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
			buf = buf[:0]
			f.Flush()
		}
	})
	return url, critical
}

// appendInPhase appends event i of agent k (named agent), written at now,
// in its SSE frame. It appends without fmt: the producers share the
// listener's process and cores, and what they spend is spent in the same
// instants as the listener's work.
func appendInPhase(buf []byte, agent string, k, i int, now time.Time) []byte {
	s, seq := i%16, i/16
	typ := protocol.TypeProgressUpdated
	if seq == 0 {
		typ = protocol.TypeSessionStarted
	}
	buf = append(buf, `data: {"@context":"`+protocol.ContextURL+`","aaep_version":"`+protocol.Version+`","type":"`...)
	buf = append(buf, typ...)
	buf = append(buf, `","event_id":"evt_`...)
	buf = append(buf, agent...)
	buf = append(buf, 'x')
	buf = strconv.AppendInt(buf, int64(i), 10)
	buf = append(buf, `","session_id":"sess_`...)
	buf = append(buf, agent...)
	buf = append(buf, 'x')
	buf = strconv.AppendInt(buf, int64(s), 10)
	buf = append(buf, `","sequence_number":`...)
	buf = strconv.AppendInt(buf, int64(seq), 10)
	buf = append(buf, `,"timestamp":"`...)
	buf = now.UTC().AppendFormat(buf, time.RFC3339Nano)
	buf = append(buf, `","producer":{"agent_id":"`...)
	buf = append(buf, agent...)
	if (i+k)%10 == 9 {
		buf = append(buf, `"},"urgency":"critical","summary_normal":"Alarm `...)
		buf = strconv.AppendInt(buf, now.UnixNano(), 10)
	} else {
		buf = append(buf, `"},"urgency":"background","summary_normal":"Step `...)
		buf = strconv.AppendInt(buf, int64(i), 10)
	}
	buf = append(buf, `."`...)
	if seq != 0 {
		buf = append(buf, `,"progress":{"step":`...)
		buf = strconv.AppendInt(buf, int64(i+1), 10)
		buf = append(buf, '}')
	}
	return append(buf, "}\n\n"...)
}

// alarmTimes is the listener's standard output: it times every "Alarm N."
// line from N, and closes done when want have come; it closes ready when
// the "Ready." lines of all agents have come.
type alarmTimes struct {
	mu     sync.Mutex
	times  []time.Duration
	want   int
	done   chan struct{}
	agents int
	readyN int
	ready  chan struct{}
}

func (w *alarmTimes) Write(p []byte) (int, error) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.readyN < w.agents {
		if w.readyN += bytes.Count(p, []byte("Ready.")); w.readyN >= w.agents {
			close(w.ready)
		}
	}
	eachAlarm(p, func(sent time.Time) {
		w.times = append(w.times, now.Sub(sent))
		if len(w.times) == w.want {
			close(w.done)
		}
	})
	return len(p), nil
}

// eachAlarm calls fn with the time each "Alarm N." in p was sent (N, in
// nanoseconds).
func eachAlarm(p []byte, fn func(sent time.Time)) {
	for rest := p; ; {
		i := bytes.Index(rest, []byte("Alarm "))
		if i < 0 {
			return
		}
		rest = rest[i+len("Alarm "):]
		j := bytes.IndexByte(rest, '.')
		if j < 0 {
			return
		}
		if ns, err := strconv.ParseInt(string(rest[:j]), 10, 64); err == nil {
			fn(time.Unix(0, ns))
		}
	}
}

// streamOnce serves stream to the first GET /events as an event stream;
// every other request is told there is nothing (no reconnection).
func streamOnce(tb testing.TB, stream func(w http.ResponseWriter, r *http.Request)) string {
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" || served.Add(1) > 1 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		stream(w, r)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// An agent that sends only critical events, as fast as it can, keeps
// neither typed commands nor another agent waiting: critical batches go
// first, but never twice in a row without a turn for the rest.
func TestCriticalFloodDoesNotStarveCommands(t *testing.T) {
	t.Parallel()
	loud := streamOnce(t, func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		var buf []byte
		for i := 0; r.Context().Err() == nil; i++ {
			buf = fmt.Appendf(buf[:0], `data: {"@context":%q,"aaep_version":%q,"type":%q,"event_id":"evt_%d","session_id":"sess_1","sequence_number":%d,`+
				`"timestamp":%q,"producer":{"agent_id":"loud"},"urgency":"critical","summary_normal":"Alarm."}`+"\n\n",
				protocol.ContextURL, protocol.Version, protocol.TypeStateChanged, i, i, time.Now().UTC().Format(time.RFC3339Nano))
			if _, err := w.Write(buf); err != nil {
				return
			}
			if i%64 == 0 {
				f.Flush()
			}
		}
	})
	quiet := streamOnce(t, func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	r := startListener(t, "--plain", "--no-sign", "--layout", "legacy", "loud="+loud, "quiet="+quiet)
	r.waitOutput(t, "Alarm.")
	fmt.Fprintln(r.stdin, "quit")
	r.wait(t)
}

// minFanIn reads the event streams at urls, a goroutine each, and writes
// one line an event to out, the event's summary_normal, as it reads it: no
// decoding, validation, dedupe or order, one write a line. errOut is
// told why a stream could not be opened; stop closes the streams, waits
// for their goroutines and closes the idle connections.
func minFanIn(tb testing.TB, out, errOut io.Writer, urls []string) (stop func()) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	var mu sync.Mutex // one line at a time on out
	var wg sync.WaitGroup
	bodies := make([]io.Closer, 0, len(urls))
	for _, url := range urls {
		resp, err := client.Get(url + "/events")
		if err != nil {
			fmt.Fprintf(errOut, "warning: %v\n", err)
			continue
		}
		bodies = append(bodies, resp.Body)
		wg.Go(func() {
			var line []byte
			ssefloor.Each(resp.Body, func(data []byte) {
				summary := ssefloor.Member(data, `"summary_normal":"`)
				if summary == nil {
					return
				}
				line = append(append(line[:0], summary...), '\n')
				mu.Lock()
				out.Write(line)
				mu.Unlock()
			})
		})
	}
	return func() {
		for _, b := range bodies {
			b.Close()
		}
		wg.Wait()
		client.CloseIdleConnections()
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// schedLatencies sums the runtime's histogram of how long goroutines
// waited to run once ready (/sched/latencies:seconds) over the spans
// between start and stop.
type schedLatencies struct {
	s     []metrics.Sample
	from  []uint64
	sum   []uint64
	edges []float64
}

func newSchedLatencies() *schedLatencies {
	return &schedLatencies{s: []metrics.Sample{{Name: "/sched/latencies:seconds"}}}
}

func (l *schedLatencies) read() []uint64 {
	metrics.Read(l.s)
	if l.s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	h := l.s[0].Value.Float64Histogram()
	l.edges = h.Buckets
	return slices.Clone(h.Counts)
}

func (l *schedLatencies) start() { l.from = l.read() }

func (l *schedLatencies) stop() {
	to := l.read()
	if len(to) != len(l.from) {
		return
	}
	if l.sum == nil {
		l.sum = make([]uint64, len(to))
	}
	for i := range to {
		l.sum[i] += to[i] - l.from[i]
	}
}

// p99 is the 99th percentile in seconds (the upper edge of its bucket).
func (l *schedLatencies) p99() float64 {
	var n uint64
	for _, c := range l.sum {
		n += c
	}
	var seen uint64
	for i, c := range l.sum {
		if seen += c; n > 0 && float64(seen) >= 0.99*float64(n) {
			return l.edges[i+1]
		}
	}
	return 0
}
