package tui

// ring holds the newest entries, up to a fixed capacity; older ones are
// dropped. Entries are numbered in arrival order from 1.
type ring struct {
	buf  []entry
	head int    // index of the oldest entry
	n    int    // entries held
	next uint64 // number of the next entry
}

func newRing(capacity int) *ring {
	if capacity < 1 {
		capacity = 1
	}
	return &ring{buf: make([]entry, capacity), next: 1}
}

// push adds it and returns the entry's number.
func (r *ring) push(it Item) uint64 {
	seq := r.next
	r.next++
	e := newEntry(it, seq)
	if r.n < len(r.buf) {
		r.buf[(r.head+r.n)%len(r.buf)] = e
		r.n++
		return seq
	}
	r.buf[r.head] = e
	r.head = (r.head + 1) % len(r.buf)
	return seq
}

// len is the number of entries held.
func (r *ring) len() int { return r.n }

// first is the number of the oldest entry held (next when empty).
func (r *ring) first() uint64 { return r.next - uint64(r.n) }

// last is the number of the newest entry, 0 when none was ever pushed.
func (r *ring) last() uint64 { return r.next - 1 }

// get returns entry number seq, or nil when it was dropped or never existed.
func (r *ring) get(seq uint64) *entry {
	if seq < r.first() || seq >= r.next {
		return nil
	}
	return &r.buf[(r.head+int(seq-r.first()))%len(r.buf)]
}
