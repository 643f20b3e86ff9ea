package session

import (
	"hash/maphash"
	"math/bits"
	"sync"

	"github.com/aaep-term/aaep-term/internal/keywindow"
)

// hasher turns pairs of strings into 64-bit keys, so bounded sets remember
// 8 bytes per entry instead of the strings. Its seeds are random per
// Engine, so a producer cannot choose colliding IDs.
type hasher struct {
	h      maphash.Hash
	seeded bool
	seeds  [2]maphash.Seed // of sum's two halves
	// lastA is the first string sum hashed last (a copy: the strings it is
	// given are cut from events' frames, which it should not keep), and
	// lastHA its hash: a stream's events are nearly all one agent's.
	lastA  []byte
	lastHA uint64
}

// sum returns the key of the pair (a, b): the hashes of a and of b under
// seeds of their own, combined. Two pairs share a key only when the
// hashes happen to, whether a or b differ (a NUL inside an ID makes no
// pairs equal). Each is one call of the runtime's string hash, not a
// copy of the strings into a buffer to hash: the dedupe window sums every
// event's key.
func (x *hasher) sum(a, b string) uint64 {
	if !x.seeded {
		x.seeds, x.seeded = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, true
		x.lastHA = maphash.String(x.seeds[0], "")
	}
	if string(x.lastA) != a {
		x.lastA, x.lastHA = append(x.lastA[:0], a...), maphash.String(x.seeds[0], a)
	}
	return x.lastHA ^ bits.RotateLeft64(maphash.String(x.seeds[1], b), 32)
}

// hashSet is a window of keys alone.
type hashSet struct{ w keywindow.Window[struct{}] }

func newHashSet(max int) hashSet { return hashSet{keywindow.New[struct{}](max)} }

func (s *hashSet) has(k uint64) bool { return s.w.Has(k) }

// add remembers k. A key already present keeps its place in the window.
func (s *hashSet) add(k uint64) { s.w.Add(k, struct{}{}) }

// seenOrAdd reports whether k is remembered, and remembers it when not.
func (s *hashSet) seenOrAdd(k uint64) bool {
	_, seen := s.w.Add(k, struct{}{})
	return seen
}

func (s *hashSet) len() int { return s.w.Len() }

// full reports whether adding a new key forgets one.
func (s *hashSet) full() bool { return s.w.Full() }

// window remembers a value for each of the max keys put last; when it is
// full, putting a new key forgets the oldest. Its memory grows with use, up
// to max entries.
type window[V any] struct {
	max  int
	ring []uint64 // keys in the order they were put; once full, a ring
	next int      // the ring slot to overwrite next, once full
	m    map[uint64]V
}

func (w *window[V]) get(k uint64) (V, bool) {
	v, ok := w.m[k]
	return v, ok
}

func (w *window[V]) has(k uint64) bool {
	_, ok := w.m[k]
	return ok
}

// put remembers v for k. A key already present keeps its place in the
// window and takes the new value.
func (w *window[V]) put(k uint64, v V) {
	if _, ok := w.m[k]; ok {
		w.m[k] = v
		return
	}
	w.insert(k, v)
}

// insert remembers v for k, which is not remembered, forgetting the
// oldest key when the window is full.
func (w *window[V]) insert(k uint64, v V) {
	if w.m == nil {
		w.m = make(map[uint64]V)
	}
	if len(w.ring) < w.max {
		w.ring = append(w.ring, k)
	} else {
		delete(w.m, w.ring[w.next])
		w.ring[w.next] = k
		w.next = (w.next + 1) % w.max
	}
	w.m[k] = v
}

// add remembers k with the zero value.
func (w *window[V]) add(k uint64) {
	var zero V
	w.put(k, zero)
}

func (w *window[V]) len() int { return len(w.m) }

// Dedupe is a window of recent event keys that several engines share (the
// agents of one listener): one budget of memory for all, which each engine
// uses as much as its events need, so that the whole stays bounded however
// many engines share it. Each engine hashes its keys with a seed of its
// own, so two engines' keys never meet, even for the same agent_id and
// event_id (two agents of one kind). A Dedupe is safe for concurrent use.
type Dedupe struct {
	mu sync.Mutex
	w  hashSet
}

// NewDedupe is a Dedupe remembering the max keys put last.
func NewDedupe(max int) *Dedupe {
	if max <= 0 {
		max = defaultDedupeWindow
	}
	return &Dedupe{w: newHashSet(max)}
}

// seenOrAdd reports whether k is remembered, and remembers it when not.
func (d *Dedupe) seenOrAdd(k uint64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.w.seenOrAdd(k)
}

// has reports whether k is remembered, and whether the window is full
// (keys were forgotten, so an absent k may have been seen).
func (d *Dedupe) has(k uint64) (has, full bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.w.has(k), d.w.full()
}

// Len is how many keys are remembered.
func (d *Dedupe) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.w.len()
}
