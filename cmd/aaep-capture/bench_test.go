package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/capture/record"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// BenchmarkRecord runs the real aaep-capture binary (built without the
// race detector) against a loopback SSE producer (legacy layout, no
// handshake) that streams events as fast as the connection takes them, and
// reports events recorded per second from start to exit, and per second of
// the binary's processor time (steadier on a shared machine). "flood" is
// producer.Flood's progress events; "demo" is the demo producer's valid
// events (every scenario, among them a clarification with choices), in laps
// with new event, session and reply IDs. The recording goes to a file in
// a temporary directory.
func BenchmarkRecord(b *testing.B) {
	const events = 200_000
	bin := filepath.Join(b.TempDir(), "aaep-capture")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	demo := demoEvents(b)
	b.Run("flood", func(b *testing.B) {
		benchRecord(b, bin, events, producer.FloodHandler(events, 64))
	})
	b.Run("demo", func(b *testing.B) {
		benchRecord(b, bin, events, lapsHandler(demo, events))
	})
}

func benchRecord(b *testing.B, bin string, events int, stream http.Handler) {
	out := filepath.Join(b.TempDir(), "bench.aaep")
	var cpu time.Duration // the binary's processor time, user and system
	for b.Loop() {
		var served atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path != "/events":
				http.NotFound(w, r)
			case served.Add(1) == 1:
				stream.ServeHTTP(w, r)
			default:
				w.WriteHeader(http.StatusNoContent) // the stream is over: do not reconnect
			}
		}))
		var stderr strings.Builder
		cmd := exec.Command(bin, "--no-handshake", "--layout", "legacy", "--no-progress", "-o", out, srv.URL)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("aaep-capture: %v\n%s", err, stderr.String())
		}
		srv.Close()
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if !strings.Contains(stderr.String(), fmt.Sprintf("%d ", events)) {
			b.Fatalf("the recording does not say %d events:\n%s", events, stderr.String())
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
}

// demoEvents returns the events the demo producer sends, every scenario
// once, without quirks: all valid.
func demoEvents(tb testing.TB) [][]byte {
	srv := httptest.NewServer(capturetest.DemoProducer(tb, false))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var evs [][]byte
	var d protocol.Decoder
	c, err := subscriber.Dial(ctx, srv.URL, subscriber.Config{Identity: session.Identity{ID: "aaep-term-bench", Name: "bench", Version: record.Version}, Tap: func(dir subscriber.Direction, b []byte, _ time.Time) {
		ev, err := d.Decode(b)
		if dir == subscriber.Received && ev != nil && err == nil {
			evs = append(evs, append([]byte(nil), b...))
		}
	}})
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := c.NextBatch(ctx, 0); err != nil {
			break
		}
	}
	if len(evs) == 0 {
		tb.Fatal("the demo sent no valid event")
	}
	return evs
}

// lapsHandler streams n events as SSE, going round evs, each lap with its
// own event, session and reply IDs.
func lapsHandler(evs [][]byte, n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		bw := bufio.NewWriterSize(w, 256<<10)
		for lap := 0; lap*len(evs) < n; lap++ {
			k := fmt.Sprintf("%06x", lap)
			ids := strings.NewReplacer(`"evt_`, `"evt_`+k, `"sess_`, `"sess_`+k, `"rpl_`, `"rpl_`+k)
			for _, e := range evs[:min(len(evs), n-lap*len(evs))] {
				bw.WriteString("data: " + ids.Replace(string(e)) + "\n\n")
			}
		}
		_ = bw.Flush()
	})
}
