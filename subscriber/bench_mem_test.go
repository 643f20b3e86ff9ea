package subscriber_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/subscriber"
)

// BenchmarkMemory pushes 10 million events through the client, across
// 100,000 sessions, and reports the live heap after the first million
// events (warm) and at the end, and the growth between the two.
func BenchmarkMemory(b *testing.B) {
	const total, sessions = 10_000_000, 100_000
	evs := corpus(1<<17, sessions, 0)
	heap := func() float64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc) / (1 << 20)
	}
	var warm, end float64
	for b.Loop() {
		c := subscriber.New(context.Background(), &corpusConn{evs: evs, n: total}, "", subscriber.Config{})
		seen := 0
		for {
			batch, err := c.NextBatch(context.Background(), 0)
			if err != nil {
				break
			}
			for range batch {
				seen++
				if seen == 1_000_000 {
					warm = heap()
				}
			}
		}
		end = heap()
		runtime.KeepAlive(c)
	}
	b.ReportMetric(warm, "warm-heap-MB")
	b.ReportMetric(end, "end-heap-MB")
	b.ReportMetric(end-warm, "growth-MB")
}

// BenchmarkPromptFlood sends 120,000 or 240,000 confirmations nobody
// answers, each with its own reply token, through the client. It reports
// the rate and the heap kept after the flood: both stay flat, since at most
// 256 prompts of an agent and 1024 in all are kept.
func BenchmarkPromptFlood(b *testing.B) {
	for _, n := range []int{120_000, 240_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFlood(b, n) })
	}
}

func benchFlood(b *testing.B, n int) {
	now := time.Now().UTC().Format(time.RFC3339) // the prompts are not stale
	frames := make([][]byte, n)
	for i := range frames {
		frames[i] = fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","type":"aaep:agent.awaiting.confirmation","action":"Transfer 500 dollars to savings.","consequence":"The money moves at once.","risk_level":"low","irreversible":false,"reply_token":"rpl_%012x","timeout_seconds":300,"default_decision":"reject","summary_normal":"Please confirm the transfer.","event_id":"evt_0000%012x","session_id":"sess_0000%08x","timestamp":"%s","producer":{"agent_id":"flood-agent-%d","agent_name":"Flood Agent"},"urgency":"critical"}`,
			i, i, i%64, now, i%8)
	}
	var kept uint64
	for b.Loop() {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		c := subscriber.New(context.Background(), &corpusConn{evs: frames, n: n}, "", subscriber.Config{})
		for {
			if _, err := c.NextBatch(context.Background(), 0); err != nil {
				break
			}
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if after.HeapAlloc > before.HeapAlloc {
			kept = after.HeapAlloc - before.HeapAlloc
		}
		runtime.KeepAlive(c)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "prompts/s")
	b.ReportMetric(float64(kept), "bytes-kept")
}
