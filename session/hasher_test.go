package session

import (
	"hash/maphash"
	"math/bits"
	"testing"
	"unsafe"
)

// Two different pairs never share a key by construction: a NUL inside one
// ID cannot move the boundary between the two (one string with a NUL
// between them made ("a\x00b", "c") and ("a", "b\x00c") the same key).
func TestHasherPairsKeepTheirBoundary(t *testing.T) {
	var x hasher
	for _, p := range [][2][2]string{
		{{"a\x00b", "c"}, {"a", "b\x00c"}},
		{{"ab", ""}, {"a", "b"}},
		{{"", "ab"}, {"a", "b"}},
		{{"a", "b"}, {"b", "a"}},
	} {
		if x.sum(p[0][0], p[0][1]) == x.sum(p[1][0], p[1][1]) {
			t.Errorf("(%q, %q) and (%q, %q) share a key", p[0][0], p[0][1], p[1][0], p[1][1])
		}
	}
	if x.sum("agent", "evt_1") != x.sum("agent", "evt_1") {
		t.Error("the same pair gave two keys")
	}
}

// sum remembers the hash of the first string of the pair it hashed last:
// its keys are the keys of the pairs hashed afresh, whatever the order of
// the pairs, and what it remembers is a copy, not the bytes it was given
// (an event's frame, which it must not keep nor trust to stay).
func TestHasherSumAsAfresh(t *testing.T) {
	var x hasher
	afresh := func(a, b string) uint64 {
		return maphash.String(x.seeds[0], a) ^ bits.RotateLeft64(maphash.String(x.seeds[1], b), 32)
	}
	pairs := [][2]string{{"", ""}, {"", "tok"}, {"agent-1", "evt_1"}, {"agent-1", "evt_2"}, {"agent-2", "evt_1"},
		{"agent-1", "evt_1"}, {"id", "call_1"}, {"", "tok"}, {"agent-1", ""}, {"agent-1", "evt_3"}}
	for i, p := range pairs {
		if got, want := x.sum(p[0], p[1]), afresh(p[0], p[1]); got != want {
			t.Errorf("pair %d %q: key %x, hashed afresh %x", i, p, got, want)
		}
	}
	frame := []byte("agent-9")
	x.sum(unsafe.String(&frame[0], len(frame)), "evt_1")
	copy(frame, "agent-8") // the frame's bytes change under a kept string
	if got, want := x.sum("agent-8", "evt_2"), afresh("agent-8", "evt_2"); got != want {
		t.Errorf("after the bytes it was given changed: key %x, hashed afresh %x", got, want)
	}
}
