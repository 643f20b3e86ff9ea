package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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
