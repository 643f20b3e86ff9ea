package producer

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/protocol"
)

// BenchmarkReplaySSE measures a replay at --speed 0 on one SSE stream of
// the deployed layout: every op is one event, from the record to the line
// the subscriber reads, restamped with the time of sending.
func BenchmarkReplaySSE(b *testing.B) {
	recs := make([]capture.Record, b.N)
	for i := range recs {
		recs[i] = capture.Record{Dir: capture.In, Msg: []byte(fmt.Sprintf(
			`{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.progress.updated",`+
				`"event_id":"evt_%d","session_id":"sess_b","sequence_number":%d,"timestamp":"2026-01-01T00:00:00.000Z",`+
				`"producer":{"agent_id":"bench"},"verbosity":"normal","urgency":"background","summary_normal":"Step %d."}`, i, i, i))}
	}
	p := New(Options{Replay: &Replay{Records: recs}})
	hs := httptest.NewServer(p)
	defer func() { p.Close(); hs.Close() }()
	b.ReportAllocs()
	b.ResetTimer()
	resp, err := http.Get(hs.URL + protocol.PathLegacyEvents)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			n++
		}
	}
	if n != b.N {
		b.Fatalf("%d events, want %d", n, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
