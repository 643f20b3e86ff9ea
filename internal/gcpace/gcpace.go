// Package gcpace lets a command's heap grow to a floor before the garbage
// collector runs, so that a small live heap does not cost a collection
// every few megabytes allocated.
//
// Go starts a collection when the heap has grown by GOGC percent (100) of
// what the last one left alive. A listener keeps little alive (a few
// megabytes for one agent) and allocates fast under a flood, so it
// collected about 120 times a second; a floor of tens of megabytes makes
// that a few times a second. Above the floor the collector paces as usual.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultFloor is the floor the commands use: 64 MiB.
const DefaultFloor = 64 << 20

// heapMinimum is the runtime's least heap goal at a percent of 100 (its
// defaultHeapMinimum); at another percent it is scaled by percent/100.
const heapMinimum = 4 << 20

// Pacer sets the collector's percent after each collection so that the
// next one comes when the heap reaches the floor or twice what is alive,
// whichever is more (never less than the percent in force before Start).
type Pacer struct {
	floor  uint64
	base   int // the percent before Start, restored by Stop
	onPace func(percent int)

	mu      sync.Mutex
	stopped bool // guarded by mu
	sample  []metrics.Sample
}

// Start paces the collector until Stop. Only one Pacer should run in a
// process: the percent is the process's.
func Start(floor uint64) *Pacer { return start(floor, nil) }

// start is Start telling onPace, when not nil, each percent set.
func start(floor uint64, onPace func(percent int)) *Pacer {
	base := debug.SetGCPercent(100)
	debug.SetGCPercent(base)
	p := &Pacer{floor: floor, base: base, onPace: onPace, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	p.pace()
	return p
}

// FromEnv starts a Pacer with DefaultFloor unless the user chose the
// collector's pace (GOGC set): then it returns nil. Stop on a nil Pacer
// does nothing.
func FromEnv(getenv func(string) string) *Pacer {
	if getenv("GOGC") != "" {
		return nil
	}
	return Start(DefaultFloor)
}

// Stop ends the pacing and restores the percent in force before Start.
func (p *Pacer) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		p.stopped = true
		debug.SetGCPercent(p.base)
	}
}

// sentinel is an object nothing holds, whose cleanup runs after the
// collection that finds it unreachable. (It has a pointer, so it is never
// one of the tiny allocations that share a block.)
type sentinel struct {
	_ *byte
	_ [2]uintptr
}

// pace sets the percent from the heap the last collection left alive, and
// has itself called again after the next collection.
func (p *Pacer) pace() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	runtime.AddCleanup(new(sentinel), (*Pacer).pace, p)
	metrics.Read(p.sample)
	live := uint64(1)
	if p.sample[0].Value.Kind() == metrics.KindUint64 {
		live = max(1, p.sample[0].Value.Uint64())
	}
	percent := p.base
	if p.base > 0 && live*uint64(100+p.base)/100 < p.floor {
		// The runtime's least goal is heapMinimum scaled by the percent,
		// whatever is alive: above floor*100/heapMinimum (1,600 for 64
		// MiB) that alone passes the floor. Before the first collection
		// nothing is counted alive, and it is the only goal.
		percent = int(min((p.floor-live)*100/live, p.floor*100/heapMinimum))
	}
	debug.SetGCPercent(percent)
	if p.onPace != nil {
		p.onPace(percent)
	}
}
