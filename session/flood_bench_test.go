package session

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// BenchmarkPromptFlood measures a producer that floods prompts that nobody
// answers: 120,000 or 240,000 confirmations, each with its own reply token,
// from 8 agents over 64 sessions. It reports the rate (prompts/s) and the
// heap the engine keeps after the flood (bytes-kept, after a garbage
// collection; the events themselves, built beforehand, are not counted).
// Both must stay flat, whatever the size of the flood.
func BenchmarkPromptFlood(b *testing.B) {
	for _, n := range []int{120_000, 240_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchFlood(b, n) })
	}
}

func benchFlood(b *testing.B, floodSize int) {
	evs := make([]*protocol.Event, floodSize)
	for i := range evs {
		e := &protocol.Event{
			Type:            protocol.TypeAwaitingConfirmation,
			EventID:         fmt.Sprintf("evt_%08x", i),
			SessionID:       fmt.Sprintf("sess_%02d", i%64),
			Producer:        protocol.Producer{AgentID: fmt.Sprintf("agent_%d", i%8)},
			Urgency:         protocol.UrgencyCritical,
			ReplyToken:      fmt.Sprintf("rpl_%08x", i),
			TimeoutSeconds:  300,
			DefaultDecision: protocol.DecisionReject,
			Action:          "Transfer 500 dollars to savings",
			Tool:            "transfer_money",
		}
		evs[i] = e
	}
	var kept uint64
	var elapsed time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e := New(Config{}, &countDiagnostics{})
		b.StartTimer()
		start := time.Now()
		for _, ev := range evs {
			e.Handle(ev, t0)
		}
		elapsed += time.Since(start)
		b.StopTimer()
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		if after.HeapAlloc > before.HeapAlloc {
			kept = after.HeapAlloc - before.HeapAlloc
		}
		runtime.KeepAlive(e)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*floodSize)/elapsed.Seconds(), "prompts/s")
	b.ReportMetric(float64(kept), "bytes-kept")
}
