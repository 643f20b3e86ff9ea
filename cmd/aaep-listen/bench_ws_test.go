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
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// benchBinary builds aaep-listen without the race detector.
func benchBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "aaep-listen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// floodMessages renders n flood events (producer.Flood) as one JSON
// message each.
func floodMessages(b *testing.B, n, sessions int) [][]byte {
	b.Helper()
	var buf bytes.Buffer
	if err := producer.Flood(&buf, n, sessions); err != nil {
		b.Fatal(err)
	}
	msgs := make([][]byte, 0, n)
	for l := range bytes.Lines(buf.Bytes()) {
		if d, ok := bytes.CutPrefix(l, []byte("data: ")); ok {
			msgs = append(msgs, bytes.TrimRight(d, "\n"))
		}
	}
	if len(msgs) != n {
		b.Fatalf("flood gave %d events, want %d", len(msgs), n)
	}
	return msgs
}

const benchAccepted = `{"type":"subscription.accepted","subscription_id":"sub_bench1","aaep_version":"1.0.0",` +
	`"producer":{"agent_id":"bench","agent_name":"Bench"},"honored_capabilities":{"supported_conformance_levels":[1,2,3]}}`

// wsProducer is a WebSocket producer that answers the subscription request
// and then calls stream, once; later connections are refused.
func wsProducer(b *testing.B, stream func(send func([]byte) error)) *httptest.Server {
	up := websocket.Upgrader{Subprotocols: []string{"aaep.v1"}, WriteBufferSize: 256 << 10}
	var once sync.Once
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first := false
		once.Do(func() { first = true })
		if !first {
			http.Error(w, "the stream is over", http.StatusGone)
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil { // the subscription request
			return
		}
		go func() { // drain what the listener sends (its close)
			for {
				if _, _, err := c.NextReader(); err != nil {
					return
				}
			}
		}()
		send := func(m []byte) error { return c.WriteMessage(websocket.TextMessage, m) }
		if send([]byte(benchAccepted)) != nil {
			return
		}
		stream(send)
		_ = send([]byte(`{"type":"subscription.close","subscription_id":"sub_bench1","reason_code":"producer_shutdown"}`))
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "done"), time.Now().Add(time.Second))
	}))
}

// BenchmarkEndToEndWebSocket is BenchmarkEndToEnd over WebSocket: the real
// aaep-listen binary, --plain, output to /dev/null, no rate limit, against a
// loopback producer that sends floodEvents events as fast as the connection
// takes them; events per second from start to the listener's exit.
func BenchmarkEndToEndWebSocket(b *testing.B) {
	endToEnd(b, func(b *testing.B, stream func(send func([]byte) error)) (string, func()) {
		srv := wsProducer(b, stream)
		return "ws" + strings.TrimPrefix(srv.URL, "http"), srv.Close
	})
}

// endToEnd runs the flood of BenchmarkEndToEndWebSocket against the
// producer that serve starts, and reports events per second.
func endToEnd(b *testing.B, serve func(b *testing.B, stream func(send func([]byte) error)) (url string, stop func())) {
	const floodEvents, sessions = 300_000, 64
	bin := benchBinary(b)
	msgs := floodMessages(b, floodEvents, sessions)
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	b.ResetTimer()
	for b.Loop() {
		url, stop := serve(b, func(send func([]byte) error) {
			for _, m := range msgs {
				if send(m) != nil {
					return
				}
			}
		})
		var stderr strings.Builder
		cmd := exec.Command(bin, "--plain", "--no-sign", url)
		cmd.Stdout, cmd.Stderr = devNull, &stderr
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		if err := cmd.Run(); err != nil {
			b.Fatalf("aaep-listen: %v\n%s", err, stderr.String())
		}
		stop()
		if stderr.Len() > 0 {
			b.Fatalf("diagnostics on a clean flood:\n%s", firstLines(stderr.String(), 5))
		}
	}
	b.ReportMetric(float64(floodEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkCriticalLatency measures how long a critical event takes from
// the producer's write to its line on the listener's standard output, with
// 1,000 background events per second around it, over WebSocket and SSE
// (appendix B). Every 20 ms one critical event carries its send time; the
// p50 and p99 over all iterations are reported in milliseconds.
func BenchmarkCriticalLatency(b *testing.B) {
	bin := benchBinary(b)
	for _, binding := range []string{"websocket", "grpc", "sse"} {
		b.Run(binding, func(b *testing.B) {
			var lat []float64
			for b.Loop() {
				lat = append(lat, criticalLatencies(b, bin, binding, 2*time.Second)...)
			}
			slices.Sort(lat)
			if len(lat) == 0 {
				b.Fatal("no critical event was seen")
			}
			b.ReportMetric(lat[len(lat)/2], "p50-ms")
			b.ReportMetric(lat[len(lat)*9/10], "p90-ms")
			b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "p99-ms")
			b.ReportMetric(float64(len(lat)), "critical-events")
		})
	}
}

// latencyEvent renders event i of the latency run: a critical
// state.changed carrying its send time every 20th event, else background
// progress.
func latencyEvent(i int, sent time.Time) []byte {
	typ, urgency, extra := "agent.progress.updated", "background", `"progress":{"percent":50},"summary_normal":"Working."`
	if i%20 == 19 {
		typ, urgency = "agent.state.changed", "critical"
		extra = fmt.Sprintf(`"from_state":"thinking","to_state":"acting","summary_normal":"Critical mark %d."`, sent.UnixNano())
	}
	return fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:%s","event_id":"evt_l%d",`+
		`"session_id":"sess_lat","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","urgency":%q,`+
		`"producer":{"agent_id":"bench"},%s}`, typ, i, i, urgency, extra)
}

// sendPaced sends latency events at 1,000 a second for d.
func sendPaced(d time.Duration, send func([]byte) error) {
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		if due := start.Add(time.Duration(i) * time.Millisecond); time.Until(due) > 0 {
			time.Sleep(time.Until(due))
		}
		if send(latencyEvent(i, time.Now())) != nil {
			return
		}
	}
}

func criticalLatencies(b *testing.B, bin, binding string, d time.Duration) []float64 {
	var url string
	var stop func()
	switch binding {
	case "websocket":
		srv := wsProducer(b, func(send func([]byte) error) { sendPaced(d, send) })
		url, stop = "ws"+strings.TrimPrefix(srv.URL, "http"), srv.Close
	case "grpc":
		url, stop = grpcBenchProducer(b, func(send func([]byte) error) { sendPaced(d, send) })
	default:
		var mu sync.Mutex
		streams := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			streams++
			n := streams
			mu.Unlock()
			switch {
			case r.URL.Path == protocol.PathSubscriptions:
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, benchAccepted)
			case r.URL.Path == protocol.PathEvents && n <= 2:
				w.Header().Set("Content-Type", "text/event-stream")
				rc := http.NewResponseController(w)
				sendPaced(d, func(m []byte) error {
					if _, err := fmt.Fprintf(w, "event: aaep.event\ndata: %s\n\n", m); err != nil {
						return err
					}
					return rc.Flush()
				})
			case r.URL.Path == protocol.PathEvents:
				w.WriteHeader(http.StatusNoContent)
			default:
				w.WriteHeader(http.StatusAccepted)
			}
		}))
		url, stop = srv.URL, srv.Close
	}
	defer stop()
	cmd := exec.Command(bin, "--plain", "--no-sign", "--layout", "spec", url)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var lat []float64
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		now := time.Now()
		_, after, ok := strings.Cut(sc.Text(), "Critical mark ")
		if !ok {
			continue
		}
		ns, err := strconv.ParseInt(strings.TrimSuffix(after, "."), 10, 64)
		if err != nil {
			continue
		}
		ms := float64(now.Sub(time.Unix(0, ns)).Microseconds()) / 1000
		if ms > 5 {
			b.Logf("%s: critical event %d of this run took %.1f ms", binding, len(lat), ms)
		}
		lat = append(lat, ms)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("aaep-listen: %v\n%s", err, stderr.String())
	}
	return lat
}
