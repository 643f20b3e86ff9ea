package producer

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

func TestFlood(t *testing.T) {
	o := loadOfficial(t)
	srv := httptest.NewServer(FloodHandler(1000, 7))
	defer srv.Close()
	events := open(t, srv.URL, "").all(t)
	if len(events) != 1000 {
		t.Fatalf("%d events, want 1000", len(events))
	}
	ids := map[string]bool{}
	seq := map[string]float64{}
	for i, e := range events {
		m := e.decoded(t)
		if e.event != "aaep.event" || e.id != m["event_id"] || ids[e.id] {
			t.Fatalf("event %d: event %q id %q (seen before: %v)", i, e.event, e.id, ids[e.id])
		}
		ids[e.id] = true
		if n := len(e.data); n < 450 || n > 600 {
			t.Errorf("event %d is %d bytes", i, n)
		}
		sess := m["session_id"].(string)
		want, ok := seq[sess]
		if !ok && m["type"] != protocol.TypeSessionStarted || m["sequence_number"] != want {
			t.Fatalf("event %d: %s with sequence_number %v, want %v", i, m["type"], m["sequence_number"], want)
		}
		seq[sess] = want + 1
		if i < 20 || i%97 == 0 || i >= 990 {
			if err := o.validate(t, []byte(e.data)); err != nil {
				t.Errorf("%s\n%v", e.data, err)
			}
		}
		if i >= 993 && m["type"] != protocol.TypeSessionCompleted {
			t.Errorf("event %d is %s, want the sessions to complete", i, m["type"])
		}
	}
	if len(seq) != 7 {
		t.Errorf("%d sessions, want 7", len(seq))
	}
}

func TestFloodSmall(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3} {
		var b bytes.Buffer
		if err := Flood(&b, n, 5); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(b.String(), "\ndata: "); got != n {
			t.Errorf("Flood(%d): %d events", n, got)
		}
	}
}

// BenchmarkFlood reports how many events a second Flood generates.
func BenchmarkFlood(b *testing.B) {
	const n = 100000
	b.SetBytes(n * 600)
	for b.Loop() {
		if err := Flood(io.Discard, n, 16); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkFloodHTTP reports how many events a second reach a client over
// loopback HTTP.
func BenchmarkFloodHTTP(b *testing.B) {
	const n = 200000
	srv := httptest.NewServer(FloodHandler(n, 16))
	defer srv.Close()
	for b.Loop() {
		resp, err := http.Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		written, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(written)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
}
