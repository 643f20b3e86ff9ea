package session

import "hash/maphash"

// hasher turns pairs of strings into 64-bit keys, so bounded sets remember
// 8 bytes per entry instead of the strings. Its seed is random per Engine,
// so a producer cannot choose colliding IDs.
type hasher struct{ h maphash.Hash }

// sum returns the key of the pair (a, b).
func (x *hasher) sum(a, b string) uint64 {
	x.h.Reset()
	x.h.WriteString(a)
	x.h.WriteByte(0)
	x.h.WriteString(b)
	return x.h.Sum64()
}

// window remembers a value for each of the max keys put last; when it is
// full, putting a new key forgets the oldest. Its memory grows with use, up
// to max entries.
type window[V any] struct {
	max  int
	ring []uint64 // keys in the order they were put; once full, a ring
	next int      // the ring slot to overwrite next, once full
	m    map[uint64]V
}

// hashSet is a window of keys alone.
type hashSet = window[struct{}]

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
	if w.m == nil {
		w.m = make(map[uint64]V)
	}
	if _, ok := w.m[k]; !ok {
		if len(w.ring) < w.max {
			w.ring = append(w.ring, k)
		} else {
			delete(w.m, w.ring[w.next])
			w.ring[w.next] = k
			w.next = (w.next + 1) % w.max
		}
	}
	w.m[k] = v
}

// add remembers k with the zero value.
func (w *window[V]) add(k uint64) {
	var zero V
	w.put(k, zero)
}

func (w *window[V]) len() int { return len(w.m) }
