package subscriber_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/proctest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// corpus returns n valid events of about 500 bytes, spread over sessions
// sessions, each session in order: started, then tool and output events.
// When critical > 0, every critical-th event is a progress event marked
// critical.
func corpus(n, sessions, critical int) [][]byte {
	out := make([][]byte, 0, n)
	seq := make([]int, sessions)
	for i := 0; i < n; i++ {
		s := i % sessions
		var body string
		urgency := "normal"
		switch {
		case seq[s] == 0:
			body = `"type":"aaep:agent.session.started","summary_terse":"Started.","summary_normal":"Research Assistant is looking up the quarterly figures you asked for.","request_text":"Summarize the quarterly figures."`
		case critical > 0 && i%critical == 0:
			body = `"type":"aaep:agent.progress.updated","summary_normal":"Half of the figures are in.","progress":0.5`
			urgency = "critical"
		case seq[s]%2 == 1:
			body = `"type":"aaep:agent.tool.invoked","tool":"fetch_report","tool_call_id":"call_` + fmt.Sprint(i) + `","args_summary":"quarter: Q3, region: EMEA","risk_level":"low","irreversible":false,"summary_terse":"Fetching.","summary_normal":"Fetching the Q3 report for EMEA."`
		default:
			body = `"type":"aaep:agent.output.streaming","chunk":"Revenue grew by four percent over the quarter, driven by services. ","position":0,"complete":false,"coalesce_hint":"sentence","output_id":"out_` + fmt.Sprint(i) + `","content_type":"text/plain","language":"en-US"`
		}
		ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0",%s,"event_id":"evt_0000%012x","session_id":"sess_0000%08x","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant","agent_version":"2.3.1"},"urgency":"%s","localization_hints":{"primary_language":"en-US","text_direction":"ltr"}}`,
			body, i, s, seq[s], urgency)
		seq[s]++
		out = append(out, []byte(ev))
	}
	return out
}

// corpusConn is a connection that delivers n frames of a corpus, each lap
// with new IDs, then ends.
type corpusConn struct {
	evs  [][]byte
	offs [][2]int // where each event's ID and session ID digits begin
	n, i int
	// sent, when not nil, keeps the receive time of critical frames by
	// event ID.
	sent *sync.Map
	// every, when not zero, paces the frames: one every so long, as a
	// producer writing at a steady rate.
	every time.Duration
	start time.Time
}

func (c *corpusConn) Recv(ctx context.Context) (transport.Frame, error) {
	if c.i >= c.n {
		return transport.Frame{}, io.EOF
	}
	if c.every > 0 {
		if c.start.IsZero() {
			c.start = time.Now()
		}
		time.Sleep(time.Until(c.start.Add(time.Duration(c.i) * c.every)))
	}
	if c.offs == nil {
		c.offs = make([][2]int, len(c.evs))
		for i, e := range c.evs {
			c.offs[i] = [2]int{bytes.Index(e, []byte(`"evt_`)) + 5, bytes.Index(e, []byte(`"sess_`)) + 6}
		}
	}
	k := c.i % len(c.evs)
	e := bytes.Clone(c.evs[k]) // a transport hands over a frame of its own
	for _, at := range c.offs[k] {
		const hex = "0123456789abcdef"
		v := c.i / len(c.evs)
		for d := 3; d >= 0; d-- {
			e[at+d] = hex[v&0xf]
			v >>= 4
		}
	}
	c.i++
	now := time.Now()
	if c.sent != nil && bytes.Contains(e, []byte(`"urgency":"critical"`)) {
		_, rest, _ := bytes.Cut(e, []byte(`"event_id":"`))
		id, _, _ := bytes.Cut(rest, []byte(`"`))
		c.sent.Store(string(id), now)
	}
	return transport.Frame{Data: e, At: now}, nil
}
func (c *corpusConn) Send(context.Context, []byte) error { return nil }
func (c *corpusConn) Close() error                       { return nil }

// BenchmarkClient measures the whole client path for one frame: decode
// and full validation on the reading goroutine, the hand-off to the owner
// goroutine, dedupe, reorder, lifecycle, the burst hold and the terms in
// the engine on the owner goroutine, and the update taken from NextBatch by
// the benchmark's goroutine. It compares like with like with
// BenchmarkPipeline/decode+engine, the same path without the client: the
// same frames (the corpus, not copied: a transport hands over a frame of
// its own, which the client keeps and never writes), the same engine
// configuration (the zero one), schemas compiled once for the run (as the
// pipeline's one decoder compiles them once), and a new client for each lap
// of the corpus, as the pipeline makes a new engine for each lap.
func BenchmarkClient(b *testing.B) {
	evs := corpus(1<<16, 512, 0)
	schemas, err := protocol.NewSchemas()
	if err != nil {
		b.Fatal(err)
	}
	cfg := subscriber.Config{Schemas: schemas}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	events := 0
	for done := 0; done < b.N; {
		n := min(len(evs), b.N-done)
		events += drain(b, subscriber.New(context.Background(), &framesConn{frames: evs[:n]}, "", cfg))
		done += n
	}
	if events != b.N {
		b.Fatalf("%d events delivered of %d", events, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
}

// BenchmarkClientLongRun is BenchmarkClient as one long subscription: a
// single client for the whole run, each frame a fresh copy of a corpus
// event with new IDs on each lap (as a transport allocates each frame), so
// the dedupe window stays full. The copy is the stand-in transport's cost,
// not the client's.
func BenchmarkClientLongRun(b *testing.B) {
	evs := corpus(1<<16, 512, 0)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	events := drain(b, subscriber.New(context.Background(), &corpusConn{evs: evs, n: b.N}, "", subscriber.Config{}))
	if events < b.N*9/10 {
		b.Fatalf("%d events delivered of %d", events, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
}

// drain takes c's updates until its End and returns how many events it
// delivered.
func drain(b *testing.B, c *subscriber.Client) int {
	events := 0
	for {
		batch, err := c.NextBatch(context.Background(), 0)
		if err != nil {
			return events
		}
		for _, u := range batch {
			if u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent {
				events++
			}
			if u.Kind == subscriber.KindEnd && u.Err != nil {
				b.Fatal(u.Err)
			}
		}
	}
}

// framesConn is a connection that delivers frames as they are, then ends.
type framesConn struct {
	frames [][]byte
	i      int
}

func (c *framesConn) Recv(context.Context) (transport.Frame, error) {
	if c.i >= len(c.frames) {
		return transport.Frame{}, io.EOF
	}
	c.i++
	return transport.Frame{Data: c.frames[c.i-1], At: time.Now()}, nil
}
func (c *framesConn) Send(context.Context, []byte) error { return nil }
func (c *framesConn) Close() error                       { return nil }

// BenchmarkClientCriticalLatency measures, in a stream of 1,000 events a
// second with one critical event in 20 (as aaep-listen's
// BenchmarkCriticalLatency, without the network and the terminal), the
// time from a critical frame's receipt to its update being taken by the
// reader: p50 and p99 in milliseconds. Each iteration is two seconds.
func BenchmarkClientCriticalLatency(b *testing.B) {
	evs := corpus(1<<12, 64, 20)
	var lat []float64
	for b.Loop() {
		lat = append(lat, criticalLatencies(b, evs)...)
	}
	if len(lat) == 0 {
		b.Fatal("no critical event delivered")
	}
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "p50-ms")
	b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "p99-ms")
	b.ReportMetric(float64(len(lat)), "critical-events")
}

func criticalLatencies(b *testing.B, evs [][]byte) []float64 {
	var lat []float64
	var sent sync.Map
	c := subscriber.New(context.Background(), &corpusConn{evs: evs, n: 2000, sent: &sent, every: time.Millisecond}, "", subscriber.Config{})
	for {
		batch, err := c.NextBatch(context.Background(), 0)
		if err != nil {
			break
		}
		now := time.Now()
		for _, u := range batch {
			ev := u.Delivery.Event
			if u.Kind == subscriber.KindDelivery && ev != nil && ev.Urgency == protocol.UrgencyCritical {
				if at, ok := sent.Load(ev.EventID); ok {
					lat = append(lat, float64(now.Sub(at.(time.Time)))/1e6)
				}
			}
		}
	}
	runtime.KeepAlive(c)
	return lat
}

// BenchmarkPipeline measures the stages below the client, as
// aaep-listen's benchmark did: decode alone, then decode and the engine.
func BenchmarkPipeline(b *testing.B) {
	evs := corpus(1<<16, 512, 0)
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
		var d protocol.Decoder // one for the run: its schemas are compiled once
		eng := session.New(session.Config{}, discardOutput{})
		now := time.Now()
		b.SetBytes(int64(size / len(evs)))
		b.ReportAllocs()
		cpu0 := cpuTime()
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
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
	})
}

type discardOutput struct{}

func (discardOutput) Deliver(session.Delivery)    {}
func (discardOutput) Diagnose(session.Diagnostic) {}

// cpuTime is the user and system time the process has used so far.
func cpuTime() time.Duration { return proctest.CPUTime() }
