package session

import (
	"math/rand/v2"
	"testing"
)

// TestHashSetAgreesWithWindow: the table of keys remembers and forgets
// exactly what a window of keys in a map does, through growing, a full
// window forgetting its oldest, keys that collide (small, clustered) and
// the key 0.
func TestHashSetAgreesWithWindow(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		key  func(r *rand.Rand) uint64
	}{
		{"random", 1000, func(r *rand.Rand) uint64 { return r.Uint64() >> r.IntN(64) }},
		{"small keys", 300, func(r *rand.Rand) uint64 { return r.Uint64N(700) }},
		{"clustered", 64, func(r *rand.Rand) uint64 { return r.Uint64N(40) << 58 }},
		{"window of 1", 1, func(r *rand.Rand) uint64 { return r.Uint64N(3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.max)))
			s, w := hashSet{max: tc.max}, window[struct{}]{max: tc.max}
			for i := range 50_000 {
				k := tc.key(r)
				if got, want := s.has(k), w.has(k); got != want {
					t.Fatalf("step %d: has(%#x) = %v, the window says %v", i, k, got, want)
				}
				if r.IntN(2) == 0 {
					if got, want := s.seenOrAdd(k), w.has(k); got != want {
						t.Fatalf("step %d: seenOrAdd(%#x) = %v, the window says %v", i, k, got, want)
					}
				} else {
					s.add(k)
				}
				w.add(k)
				if s.len() != w.len() {
					t.Fatalf("step %d: %d keys, the window has %d", i, s.len(), w.len())
				}
			}
			for k := range w.m {
				if !s.has(k) {
					t.Fatalf("%#x forgotten, the window has it", k)
				}
			}
			in := 0
			for _, k := range s.slots {
				if k != 0 {
					in++
				}
			}
			if s.zero {
				in++
			}
			if in != w.len() || len(s.slots) > 4*tc.max+16 {
				t.Fatalf("%d keys in a table of %d slots, the window has %d", in, len(s.slots), w.len())
			}
		})
	}
}
