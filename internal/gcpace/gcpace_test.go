package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// After each collection the percent is set so that the next one comes at
// the floor (far above twice this test's small heap), and Stop restores
// the percent in force before.
func TestPacedToTheFloor(t *testing.T) {
	paced := make(chan int, 16)
	p := start(64<<20, func(percent int) { paced <- percent })
	first := <-paced // set by start itself
	var again int
	for deadline := time.Now().Add(time.Minute); ; {
		runtime.GC()
		select {
		case again = <-paced: // after the collection
		case <-time.After(time.Second):
			if time.Now().Before(deadline) {
				continue // its cleanup not run yet: another collection
			}
			t.Fatal("no percent set after a minute of collections")
		}
		break
	}
	p.Stop()
	for _, got := range []int{first, again} {
		if got <= 100 {
			t.Errorf("percent %d with a heap far below the floor; want above 100", got)
		}
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("percent %d after Stop, want the 100 before Start", got)
	}
}

// A floor below twice the heap alive leaves the collector's pace alone.
func TestFloorBelowTheHeap(t *testing.T) {
	paced := make(chan int, 16)
	p := start(1, func(percent int) { paced <- percent })
	defer p.Stop()
	if got := <-paced; got != 100 {
		t.Errorf("percent %d with a floor of 1 byte, want 100", got)
	}
}

// The user's GOGC wins.
func TestGOGCWins(t *testing.T) {
	if p := FromEnv(func(k string) string { return map[string]string{"GOGC": "200"}[k] }); p != nil {
		p.Stop()
		t.Error("paced although GOGC was set")
	}
}

// The heap may grow to about the floor before the next collection, not
// far beyond it: the runtime's least goal grows with the percent (4 MiB at
// 100), so a percent set from a heap of a few megabytes alone, or from
// none before the first collection, put the goal at gigabytes, and a
// flooded listener's first collection came only when the runtime forces
// one, after two minutes (200,000 events: 500 MB resident).
func TestHeapGoalAtTheFloor(t *testing.T) {
	const floor = 64 << 20
	paced := make(chan int, 16)
	p := start(floor, func(percent int) { paced <- percent })
	defer p.Stop()
	goal := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	check := func(when string) {
		t.Helper()
		if g := goal(); g < floor/2 || g > 2*floor {
			t.Errorf("%s: heap goal %d MiB, want about the floor, %d MiB", when, g>>20, floor>>20)
		}
	}
	<-paced
	check("at the start")
	for deadline := time.Now().Add(time.Minute); ; {
		runtime.GC()
		select {
		case <-paced:
		case <-time.After(time.Second):
			if time.Now().Before(deadline) {
				continue
			}
			t.Fatal("no percent set after a minute of collections")
		}
		break
	}
	check("after a collection")
}
