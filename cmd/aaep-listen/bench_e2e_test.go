package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/gcpace"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
)

// BenchmarkEndToEnd runs the real aaep-listen binary (built without the race
// detector) with --plain against a loopback SSE producer that streams
// floodEvents events as fast as the connection takes them, with the
// listener's output going to /dev/null, and reports events per second from
// the first request to the listener's exit.
func BenchmarkEndToEnd(b *testing.B) {
	const floodEvents, sessions = 500_000, 64
	bin := filepath.Join(b.TempDir(), "aaep-listen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()

	for b.Loop() {
		var served atomic.Int32
		flood := producer.FloodHandler(floodEvents, sessions)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path != "/events":
				http.NotFound(w, r)
			case served.Add(1) == 1:
				flood.ServeHTTP(w, r)
			default:
				w.WriteHeader(http.StatusNoContent) // the stream is over: do not reconnect
			}
		}))
		var stderr strings.Builder
		cmd := exec.Command(bin, "--plain", "--no-sign", "--layout", "legacy", srv.URL)
		cmd.Stdout, cmd.Stderr = devNull, &stderr
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		if err := cmd.Run(); err != nil {
			b.Fatalf("aaep-listen: %v\n%s", err, stderr.String())
		}
		srv.Close()
		if stderr.Len() > 0 {
			b.Fatalf("diagnostics on a clean flood:\n%s", firstLines(stderr.String(), 5))
		}
	}
	b.ReportMetric(float64(floodEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "(and more)")
	}
	return strings.Join(lines, "\n")
}

// BenchmarkEndToEnd200k pairs the real aaep-listen binary with a floor
// measured in the same run: the module's testdata/minreader, a reader of
// the same SSE stream that writes one line per event and validates nothing. Each
// iteration streams 200,000 flood events to each process in turn (output
// on /dev/null) and reports both rates in events per second of wall time
// and of the process's processor time, and how many times the floor's
// time the listener takes. AAEP_BENCH_LISTENER names a listener binary to
// measure instead of one built from this tree (an older commit's, say).
//
// The listener's time includes its wait, once the stream has ended, before
// it asks for the stream again and hears that it is over (a 204): the
// default reconnect delay, 125 to 250 ms drawn at random, which the floor
// does not wait. BenchmarkEndToEnd200kStream leaves that wait out.
func BenchmarkEndToEnd200k(b *testing.B) { endToEnd200k(b, "") }

// BenchmarkEndToEnd200kStream is BenchmarkEndToEnd200k with a producer
// that asks, first in its stream, to be reconnected after 10 ms (the SSE
// "retry:" field, the least the listener honours): the listener's time is
// the stream's, and its wait at the end 5 to 10 ms instead of 125 to 250.
func BenchmarkEndToEnd200kStream(b *testing.B) { endToEnd200k(b, "retry: 10\n\n") }

// endToEnd200k is BenchmarkEndToEnd200k with preamble written before the
// flood on every stream.
func endToEnd200k(b *testing.B, preamble string) {
	const floodEvents, sessions = 200_000, 64
	dir := b.TempDir()
	listener, floor := filepath.Join(dir, "aaep-listen"), filepath.Join(dir, "minreader")
	for bin, pkg := range map[string]string{listener: ".", floor: "../../testdata/minreader"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	if bin := os.Getenv("AAEP_BENCH_LISTENER"); bin != "" {
		listener = bin
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	run := func(args ...string) (wall, cpu time.Duration) {
		url := floodProducerAfter(b, floodEvents, preamble)
		var stderr strings.Builder
		cmd := exec.Command(args[0], append(args[1:], url)...)
		cmd.Stdout, cmd.Stderr = devNull, &stderr
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v\n%s", args[0], err, stderr.String())
		}
		wall = time.Since(start)
		if stderr.Len() > 0 {
			b.Fatalf("%s: diagnostics on a clean flood:\n%s", args[0], firstLines(stderr.String(), 5))
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var lw, lc, fw, fc time.Duration
	b.ResetTimer()
	for b.Loop() {
		w, c := run(floor)
		fw, fc = fw+w, fc+c
		w, c = run(listener, "--plain", "--no-sign", "--layout", "legacy")
		lw, lc = lw+w, lc+c
	}
	n := float64(floodEvents) * float64(b.N)
	b.ReportMetric(n/lw.Seconds(), "events/s")
	b.ReportMetric(n/lc.Seconds(), "events/cpu-s")
	b.ReportMetric(n/fw.Seconds(), "floor-events/s")
	b.ReportMetric(n/fc.Seconds(), "floor-events/cpu-s")
	b.ReportMetric(lw.Seconds()/fw.Seconds(), "x-floor-wall")
	b.ReportMetric(lc.Seconds()/fc.Seconds(), "x-floor-cpu")
}

// BenchmarkEndToEndInProcess is the listener of BenchmarkEndToEnd200k run
// in this process (parseFlags then listen, lines to /dev/null),
// so that -cpuprofile and -memprofile see it; the producer shares the
// process and appears in the profile under producer.Flood. The collector
// is paced as the command paces it (gcpace, unless GOGC is set).
func BenchmarkEndToEndInProcess(b *testing.B) {
	defer gcpace.FromEnv(os.Getenv).Stop()
	const floodEvents = 200_000
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	b.ReportAllocs()
	for b.Loop() {
		url := floodProducer(b, floodEvents)
		tio, _, _, _ := term.Test()
		var stderr strings.Builder
		tio.Out, tio.ErrOut = devNull, &stderr
		o, err := parseFlags([]string{"--plain", "--no-sign", "--layout", "legacy", url}, tio, noEnv)
		if err != nil {
			b.Fatal(err)
		}
		if err := listen(context.Background(), o); err != nil {
			b.Fatal(err)
		}
		if stderr.Len() > 0 {
			b.Fatalf("diagnostics on a clean flood:\n%s", firstLines(stderr.String(), 5))
		}
	}
	b.ReportMetric(float64(floodEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.N), "runs")
}
