package session

import (
	"fmt"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// countDiagnostics discards deliveries and counts diagnostics.
type countDiagnostics struct{ n int }

func (*countDiagnostics) Deliver(Delivery)      {}
func (c *countDiagnostics) Diagnose(Diagnostic) { c.n++ }

// BenchmarkHandle measures one in-order event through the engine, spread
// over 512 live sessions: dedupe, sequence check, lifecycle tracking (tool
// calls paired, output chunks) and delivery.
func BenchmarkHandle(b *testing.B) {
	const sessions, perSession = 512, 256
	evs := make([]*protocol.Event, 0, sessions*perSession)
	for seq := range int64(perSession) {
		for s := range sessions {
			typ := "progress.updated"
			switch {
			case seq == 0:
				typ = "session.started"
			case seq%4 == 1:
				typ = "tool.invoked"
			case seq%4 == 2:
				typ = "tool.completed"
			case seq%4 == 3:
				typ = "output.streaming"
			}
			e := ev(fmt.Sprintf("sess_%08x", s), seq, typ)
			e.EventID = fmt.Sprintf("evt_%08x%08x", s, seq)
			e.Tool, e.ToolCallID = "fetch_report", fmt.Sprintf("call_%d", (seq+3)/4)
			e.OutputID = fmt.Sprintf("out_%d", seq)
			evs = append(evs, e)
		}
	}
	out := &countDiagnostics{}
	e := New(Config{}, out)
	now := t0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%len(evs) == 0 && i > 0 {
			// Another lap: the sessions go on. The event IDs repeat, but the
			// dedupe window (1<<16) is shorter than a lap.
			for _, x := range evs {
				x.Seq += perSession
				if x.Type == protocol.TypeSessionStarted {
					x.Type = protocol.TypeProgressUpdated
				}
			}
		}
		e.Handle(evs[i%len(evs)], now)
	}
	if out.n > 0 {
		b.Fatalf("%d diagnostics about a clean stream", out.n)
	}
}

// BenchmarkResent measures one event of a replayed history dropped because
// it was already announced (resent.go): the producer resends a session's
// whole history, longer than the dedupe window.
func BenchmarkResent(b *testing.B) {
	const n = 1 << 17
	evs := make([]*protocol.Event, n)
	out := &countDiagnostics{}
	e := New(Config{}, out)
	for i := range int64(n) {
		evs[i] = seqEvent("s", i, false)
		e.Handle(evs[i], t0)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Handle(evs[i%n], t0)
	}
}
