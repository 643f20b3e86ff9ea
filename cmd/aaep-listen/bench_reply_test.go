package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// replyProducer is a loopback producer in the deployed layout (GET /events,
// POST /messages), and, to take signed replies, the appendix B one with a
// handshake that honours them (the listener signs for no other): it sends
// one confirmation each time next is sent a number, and reports when each
// reply's bytes have all arrived.
type replyProducer struct {
	next    chan int
	replies chan time.Time
	verify  *sigrpl.Verifier // when set, every reply must carry a valid signature header
}

func (p *replyProducer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case protocol.PathSubscriptions:
		w.Header().Set("Location", protocol.PathEvents+"?subscription_id=sub_bench")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"type":%q,"subscription_id":"sub_bench","aaep_version":%q,"producer":{"agent_id":"bench"},`+
			`"honored_capabilities":{"supports_confirmation_reply":true,"sigrpl":{"kid":"bench"}}}`, protocol.TypeSubscriptionAccepted, protocol.Version)
	case "/events", protocol.PathEvents:
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case n := <-p.next:
				fmt.Fprintf(w, "data: {\"type\":\"aaep:agent.awaiting.confirmation\",\"event_id\":\"evt_b%d\",\"session_id\":\"sess_b%d\","+
					"\"timestamp\":%q,\"producer\":{\"agent_id\":\"bench\"},\"urgency\":\"critical\",\"action\":\"Delete file %d.\","+
					"\"consequence\":\"It is gone.\",\"reply_token\":\"rpl_b%d\",\"timeout_seconds\":600,\"default_decision\":\"reject\","+
					"\"risk_level\":\"high\",\"irreversible\":true}\n\n", n, n, time.Now().UTC().Format(time.RFC3339Nano), n, n)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case "/messages", protocol.PathReplies:
		body, err := io.ReadAll(r.Body)
		at := time.Now()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if p.verify != nil {
			// Checked after the arrival time is taken: the benchmark measures the listener.
			if _, err := p.verify.Verify(r.Header.Get(sigrpl.Header), body, time.Now()); err != nil {
				http.Error(w, err.Error(), http.StatusForbidden)
				at = time.Time{}
			}
		}
		w.WriteHeader(http.StatusAccepted)
		p.replies <- at
	default:
		http.NotFound(w, r)
	}
}

// BenchmarkReplyLatency measures, with the real aaep-listen binary (built
// without the race detector) against a loopback producer, the time from a
// typed "accept N" line reaching the listener's standard input to the
// reply's bytes being received by the producer. It reports the mean (ms/op)
// and the 99th percentile (p99-ms). The target is 100 ms.
func BenchmarkReplyLatency(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "aaep-listen")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	keyFile := filepath.Join(b.TempDir(), "key.pem")
	key, _, err := sigrpl.LoadOrCreate(keyFile)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name, flag, layout string
		verify             *sigrpl.Verifier
	}{{"unsigned", "--no-sign", "legacy", nil}, {"signed", "--key=" + keyFile, "spec", sigrpl.NewVerifier(key)}} {
		b.Run(mode.name, func(b *testing.B) {
			p := &replyProducer{next: make(chan int), replies: make(chan time.Time), verify: mode.verify}
			srv := httptest.NewServer(p)
			defer srv.Close()
			cmd := exec.Command(bin, "--plain", "--layout", mode.layout, mode.flag, srv.URL)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			lines := bufio.NewScanner(stdout)
			waitFor := func(want string) {
				for lines.Scan() {
					if strings.Contains(lines.Text(), want) {
						return
					}
				}
				b.Fatalf("the listener never said %q: %v\n%s", want, lines.Err(), stderr.String())
			}
			var lat []time.Duration
			n := 0
			for b.Loop() {
				n++
				b.StopTimer()
				select {
				case p.next <- n:
				case <-time.After(30 * time.Second):
					b.Fatalf("the listener is not listening\n%s", stderr.String())
				}
				waitFor(fmt.Sprintf("Confirmation needed, prompt %d:", n))
				b.StartTimer()
				typed := time.Now()
				if _, err := fmt.Fprintf(stdin, "accept %d\n", n); err != nil {
					b.Fatal(err)
				}
				select {
				case at := <-p.replies:
					if at.IsZero() {
						b.Fatalf("the reply to prompt %d is not signed right", n)
					}
					lat = append(lat, at.Sub(typed))
				case <-time.After(30 * time.Second):
					b.Fatalf("no reply to prompt %d\n%s", n, stderr.String())
				}
			}
			slices.Sort(lat)
			var sum time.Duration
			for _, d := range lat {
				sum += d
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(sum)/float64(len(lat)), "ms/op")
			b.ReportMetric(ms(lat[(len(lat)*99)/100]), "p99-ms")
			b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
		})
	}
}
