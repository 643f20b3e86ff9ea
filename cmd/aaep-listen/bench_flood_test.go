package main

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/transport"
)

// BenchmarkPromptFloodListener sends 120,000 or 240,000 confirmations nobody answers,
// each with its own reply token, through the whole listener (decode,
// validation, engine, wording, a line written to a discarding writer). It
// reports the rate and the heap kept after the flood: both stay flat, since
// at most 256 prompts of an agent and 1024 in all are kept.
func BenchmarkPromptFloodListener(b *testing.B) {
	for _, n := range []int{120_000, 240_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFloodListener(b, n) })
	}
}

func benchFloodListener(b *testing.B, n int) {
	now := time.Now().UTC().Format(time.RFC3339) // the prompts are not stale
	frames := make([]transport.Frame, n)
	for i := range frames {
		frames[i] = transport.Frame{Data: fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.awaiting.confirmation","action":"Transfer 500 dollars to savings.","consequence":"The money moves at once.","risk_level":"low","irreversible":false,"reply_token":"rpl_%012x","timeout_seconds":300,"default_decision":"reject","summary_normal":"Please confirm the transfer.","event_id":"evt_0000%012x","session_id":"sess_0000%08x","timestamp":"%s","producer":{"agent_id":"flood-agent-%d","agent_name":"Flood Agent"},"urgency":"critical"}`,
			i, i, i%64, now, i%8)}
	}
	var kept uint64
	for b.Loop() {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l := benchListener()
		b.StartTimer()
		for _, f := range frames {
			l.frame(f)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if after.HeapAlloc > before.HeapAlloc {
			kept = after.HeapAlloc - before.HeapAlloc
		}
		runtime.KeepAlive(l)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "prompts/s")
	b.ReportMetric(float64(kept), "bytes-kept")
}
