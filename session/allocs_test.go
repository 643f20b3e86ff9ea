package session

import (
	"fmt"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// A tool call that follows no confirmation, as most do, costs the engine no
// allocation of its own once its session is known: the tool's name is
// put in words only for a note or a warning that uses it. (The dedupe
// window's growth is shared out over the run; a window already full, as
// here, does not grow.)
func TestHandleToolCallAllocations(t *testing.T) {
	const n = 4096
	out := &countDiagnostics{}
	e := New(Config{DedupeWindow: 64}, out)
	e.Handle(ev("s", 0, "session.started"), t0)
	calls := make([]*protocol.Event, 0, 2*n)
	for i := range int64(n) {
		invoked := ev("s", 2*i+1, "tool.invoked")
		invoked.Tool, invoked.ToolCallID = "fetch_report", fmt.Sprintf("call_%d", i)
		completed := ev("s", 2*i+2, "tool.completed")
		completed.Tool, completed.ToolCallID = "fetch_report", fmt.Sprintf("call_%d", i)
		calls = append(calls, invoked, completed)
	}
	for _, c := range calls[:256] { // the window fills
		e.Handle(c, t0)
	}
	next := 256
	if a := testing.AllocsPerRun(500, func() {
		e.Handle(calls[next], t0)
		e.Handle(calls[next+1], t0)
		next += 2
	}); a > 0 {
		t.Errorf("a tool call and its completion allocate %v times, want none", a)
	}
	if out.n > 0 {
		t.Fatalf("%d diagnostics about a clean stream", out.n)
	}
}
