// hashset.go: the window of keys alone that dedupe looks up for every event.

package session

import "math/bits"

// hashSet remembers the max keys added last, like a window of keys alone,
// in a table of its own rather than a map: at most half its slots are
// used and a key's slot is found by one multiplication, so looking up a
// key (for every event, in a window of 65,536) reads one or two
// neighbouring slots, where a map of that size probes its groups.
type hashSet struct {
	max   int
	ring  []uint64 // keys in the order they were added; once full, a ring
	next  int      // the ring slot to overwrite next, once full
	slots []uint64 // open addressing with linear probing; 0 is empty
	shift uint     // 64 - log2(len(slots))
	n     int      // keys in slots
	zero  bool     // the key 0, which slots cannot hold
}

// home is the slot where k's probe starts (Fibonacci hashing: the top
// bits of k times 2⁶⁴/φ, so keys that are not random spread too).
func (s *hashSet) home(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> s.shift)
}

// find returns k's slot, or the empty slot where it would go.
func (s *hashSet) find(k uint64) int {
	mask := len(s.slots) - 1
	i := s.home(k)
	for s.slots[i] != k && s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}

func (s *hashSet) has(k uint64) bool {
	if k == 0 {
		return s.zero
	}
	return len(s.slots) > 0 && s.slots[s.find(k)] == k
}

// add remembers k. A key already present keeps its place in the window.
func (s *hashSet) add(k uint64) {
	s.seenOrAdd(k)
}

// seenOrAdd reports whether k is remembered, and remembers it when not,
// forgetting the oldest key when the window is full.
func (s *hashSet) seenOrAdd(k uint64) bool {
	if s.has(k) {
		return true
	}
	if len(s.ring) < s.max {
		s.ring = append(s.ring, k)
	} else {
		s.remove(s.ring[s.next])
		s.ring[s.next] = k
		s.next = (s.next + 1) % s.max
	}
	s.insert(k)
	return false
}

func (s *hashSet) len() int { return len(s.ring) }

// insert puts k, which is not in the table, in it.
func (s *hashSet) insert(k uint64) {
	if k == 0 {
		s.zero = true
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	s.slots[s.find(k)] = k
	s.n++
}

// grow doubles the table (16 slots at first) and puts the keys back.
func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(16, 2*len(old)))
	s.shift = 64 - uint(bits.Len(uint(len(s.slots)-1)))
	for _, k := range old {
		if k != 0 {
			s.slots[s.find(k)] = k
		}
	}
}

// remove takes k out of the table, moving back the keys after it that
// could not have their own slot, so that no probe stops short of them.
func (s *hashSet) remove(k uint64) {
	if k == 0 {
		s.zero = false
		return
	}
	i := s.find(k)
	if s.slots[i] != k {
		return
	}
	mask := len(s.slots) - 1
	for j := (i + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		// The key at j may fill the hole at i if i lies on its probe
		// from its home to j.
		if (j-s.home(s.slots[j]))&mask >= (j-i)&mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
	s.n--
}
