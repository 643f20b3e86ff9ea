// Package keywindow remembers the last keys added, each with a value: a
// bounded set of 64-bit keys (hashes) that forgets the oldest when full,
// looked up for every event by the listener's dedupe and the checker's.
package keywindow

import "math/bits"

// Window remembers a value for each of the max keys added last; adding a
// new key when it is full forgets the oldest. Its memory grows with use,
// up to max keys. The keys are in a table of its own rather than a map:
// at most half its slots are used (a quarter, made with NewSparse) and a
// key's slot is found by one multiplication, so looking a key up (in a
// window of 65,536) reads one or two neighbouring slots, where a map of
// that size probes its groups. The zero Window remembers nothing; make
// one with New or NewSparse.
type Window[V any] struct {
	max   int
	ring  []uint64  // keys in the order they were added; once full, a ring
	next  int       // the ring slot to overwrite next, once full
	slots []slot[V] // open addressing with linear probing; key 0 is empty
	shift uint      // 64 - log2(len(slots))
	// sparse is set (1) in a window of NewSparse: the table keeps at
	// least 2^(1+sparse) slots for each key.
	sparse uint
	n      int  // keys in slots
	zero   bool // the key 0 is remembered (slots cannot hold it)
	zeroV  V    // its value
}

// slot is a key of the table with its value, side by side: adding a key
// to a full window writes the new key's slot and empties the oldest's,
// and with the values in a table of their own each of those touched two
// lines of memory (the checker's table is 4 MB, mostly not in the cache).
// The value comes first: a struct that ends with a field of no size (the
// listener's struct{}) is padded, to 16 bytes here instead of 8.
type slot[V any] struct {
	v V
	k uint64
}

// New returns a window of max keys (at least one), in a table at most
// half full.
func New[V any](n int) Window[V] {
	return Window[V]{max: max(n, 1)}
}

// NewSparse returns a window of max keys (at least one) in a table at
// most a quarter full: twice the memory of New's, for shorter probes.
// Adding a key to a full window, which removes the oldest, cost about 220
// instructions at half full (random keys), 150 at a quarter: a probe
// stops at the first empty slot, and removing a key moves back the keys
// after it up to the next one.
func NewSparse[V any](n int) Window[V] {
	return Window[V]{max: max(n, 1), sparse: 1}
}

// home is the slot where k's probe starts (Fibonacci hashing: the top
// bits of k times 2⁶⁴/φ, so keys that are not random spread too).
func (w *Window[V]) home(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> w.shift)
}

// find returns k's slot, or the empty slot where it would go.
func (w *Window[V]) find(k uint64) int {
	mask := len(w.slots) - 1
	i := w.home(k)
	for w.slots[i].k != k && w.slots[i].k != 0 {
		i = (i + 1) & mask
	}
	return i
}

// Get returns the value of k, and whether k is remembered.
func (w *Window[V]) Get(k uint64) (v V, ok bool) {
	if k == 0 {
		return w.zeroV, w.zero
	}
	if len(w.slots) == 0 {
		return v, false
	}
	if i := w.find(k); w.slots[i].k == k {
		return w.slots[i].v, true
	}
	return v, false
}

// Has reports whether k is remembered.
func (w *Window[V]) Has(k uint64) bool {
	_, ok := w.Get(k)
	return ok
}

// Add remembers k with v unless k is remembered already: then it keeps
// its value and its place, and Add returns that value and true.
func (w *Window[V]) Add(k uint64, v V) (prev V, seen bool) {
	if k == 0 {
		if w.zero {
			return w.zeroV, true
		}
	} else if len(w.slots) > 0 {
		// One probe: it finds k, or the empty slot where k goes.
		if i := w.find(k); w.slots[i].k == k {
			return w.slots[i].v, true
		} else if len(w.ring) == w.max || (w.n+1)<<(1+w.sparse) <= len(w.slots) {
			// A full window forgets a key for this one, so the table
			// needs no more room: k goes in its slot, then the oldest
			// key goes out (removing may move k back along its probe).
			w.slots[i] = slot[V]{v, k}
			w.n++
			if old, full := w.push(k); full {
				w.remove(old)
			}
			return prev, false
		}
	}
	old, full := w.push(k)
	if full {
		w.remove(old)
	}
	w.insert(k, v)
	return prev, false
}

// push puts k last in the ring; when the window was full, it returns the
// oldest key, which k took the place of, for the caller to remove.
func (w *Window[V]) push(k uint64) (old uint64, full bool) {
	if len(w.ring) < w.max {
		w.ring = append(w.ring, k)
		return 0, false
	}
	old = w.ring[w.next]
	w.ring[w.next] = k
	w.next = (w.next + 1) % w.max
	return old, true
}

// Len is how many keys are remembered.
func (w *Window[V]) Len() int { return len(w.ring) }

// Full reports whether adding a new key forgets one (so an absent key may
// have been added before).
func (w *Window[V]) Full() bool { return len(w.ring) == w.max }

// insert puts k, which is not in the table, in it.
func (w *Window[V]) insert(k uint64, v V) {
	if k == 0 {
		w.zero, w.zeroV = true, v
		return
	}
	if (w.n+1)<<(1+w.sparse) > len(w.slots) {
		w.grow()
	}
	w.slots[w.find(k)] = slot[V]{v, k}
	w.n++
}

// grow makes the table larger (16 slots at first) and puts the keys back:
// twice as large, or, in a window of NewSparse, four times, up to the
// table of a full window. A sparse window's keys are then put back a
// third as often: the checker's, made for each capture, grows from 16
// slots to 262,144, putting back 65,532 keys on its way when doubling
// (about 20 instructions an event of a capture of 200,000), 21,844 now.
// New's, the listener's, still doubles: its tables on the way stay as
// small as they were.
func (w *Window[V]) grow() {
	old := w.slots
	n := max(16, 2*len(old))
	if w.sparse > 0 {
		full := 1 << bits.Len(uint(w.max<<(1+w.sparse)-1)) // the table of max keys
		n = max(16, min(4*len(old), full))
	}
	w.slots = make([]slot[V], n)
	w.shift = 64 - uint(bits.Len(uint(len(w.slots)-1)))
	for _, s := range old {
		if s.k != 0 {
			w.slots[w.find(s.k)] = s
		}
	}
}

// remove takes k out of the table, moving back the keys after it that
// could not have their own slot, so that no probe stops short of them.
func (w *Window[V]) remove(k uint64) {
	var zero V
	if k == 0 {
		w.zero, w.zeroV = false, zero
		return
	}
	i := w.find(k)
	if w.slots[i].k != k {
		return
	}
	mask := len(w.slots) - 1
	for j := (i + 1) & mask; w.slots[j].k != 0; j = (j + 1) & mask {
		// The key at j may fill the hole at i if i lies on its probe
		// from its home to j.
		if (j-w.home(w.slots[j].k))&mask >= (j-i)&mask {
			w.slots[i] = w.slots[j]
			i = j
		}
	}
	w.slots[i] = slot[V]{}
	w.n--
}
