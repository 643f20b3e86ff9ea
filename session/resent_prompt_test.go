package session

import (
	"fmt"
	"strings"
	"testing"
)

// A prompt never seen before (a reply token no recent prompt carried) that
// comes with a number already announced, once the window of event IDs is
// full, is told late rather than dropped as a copy: its agent waits for an
// answer. A prompt really sent again (its token seen) is still dropped.
func TestNewPromptAtAnnouncedNumberIsTold(t *testing.T) {
	e, r := newTest(Config{DedupeWindow: 4})
	e.Handle(confirmation("s", 0, "old"), t0)
	for i := int64(1); i < 10; i++ {
		e.Handle(seqEvent("s", i, false), t0)
	}
	r.reset()
	again := confirmation("s", 0, "old")
	e.Handle(again, t0)
	fresh := confirmation("s", 5, "fresh")
	fresh.EventID = "s/new-prompt"
	e.Handle(fresh, t0)
	e.Tick(at(1))
	var told, resentOld bool
	for _, x := range r.log {
		if x.d != nil && x.d.Event == fresh && x.d.Prompt != nil {
			told = true
		}
		if x.d != nil && x.d.Event == again {
			resentOld = true
		}
		if x.diag != nil && strings.Contains(x.diag.Message, "new-prompt") {
			t.Errorf("the new prompt is called a copy: %s", x.diag.Message)
		}
	}
	if !told || resentOld {
		t.Errorf("new prompt told %v (want true), resent prompt told %v (want false):%s", told, resentOld, r.dump())
	}
}

// A producer that sends a settled prompt again and again, each copy with an
// event ID of its own, gets one counting line per burst, as resent events
// do: never one "already settled" line per copy.
func TestResentPromptsCountedPerBurst(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(confirmation("s", 0, "old"), t0)
	for i := int64(1); i < 4; i++ {
		e.Handle(seqEvent("s", i, false), t0)
	}
	r.reset()
	const copies = 5000
	for i := range copies {
		again := confirmation("s", 0, "old")
		again.EventID = fmt.Sprintf("s/copy-%d", i)
		e.Handle(again, t0)
	}
	e.Tick(at(1))
	if n := len(r.log); n != 1 {
		t.Fatalf("%d copies of a settled prompt gave %d lines, want 1:%s", copies, n, r.dump()[:min(2000, len(r.dump()))])
	}
	if d := r.log[0].diag; d == nil || !strings.Contains(d.Message, fmt.Sprintf("dropped %d events already announced", copies)) {
		t.Fatalf("the line does not count the copies:%s", r.dump())
	}
}
