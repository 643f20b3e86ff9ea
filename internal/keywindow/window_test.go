package keywindow

import (
	"math/rand/v2"
	"testing"
)

// model is what a Window must do, the plain way: a map and the keys in the
// order they were added.
type model struct {
	max   int
	vals  map[uint64]int
	order []uint64
}

func (m *model) add(k uint64, v int) (int, bool) {
	if prev, ok := m.vals[k]; ok {
		return prev, true
	}
	if len(m.order) == m.max {
		delete(m.vals, m.order[0])
		m.order = m.order[1:]
	}
	m.vals[k] = v
	m.order = append(m.order, k)
	return 0, false
}

// TestWindowAgreesWithModel: the table remembers and forgets exactly what
// a map with the keys in order does, values included, through growing, a
// full window forgetting its oldest, keys that collide (small, clustered)
// and the key 0.
func TestWindowAgreesWithModel(t *testing.T) {
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
			w, m := New[int](tc.max), model{max: tc.max, vals: map[uint64]int{}}
			for i := range 50_000 {
				k := tc.key(r)
				_, want := m.vals[k]
				if got := w.Has(k); got != want {
					t.Fatalf("step %d: Has(%#x) = %v, want %v", i, k, got, want)
				}
				gotV, got := w.Add(k, i+1)
				wantV, want := m.add(k, i+1)
				if got != want || gotV != wantV {
					t.Fatalf("step %d: Add(%#x) = %d, %v; want %d, %v", i, k, gotV, got, wantV, want)
				}
				if w.Len() != len(m.order) || w.Full() != (len(m.order) == tc.max) {
					t.Fatalf("step %d: %d keys (full %v), want %d", i, w.Len(), w.Full(), len(m.order))
				}
			}
			for k, v := range m.vals {
				if got, ok := w.Get(k); !ok || got != v {
					t.Fatalf("Get(%#x) = %d, %v; want %d", k, got, ok, v)
				}
			}
			in := 0
			for _, k := range w.slots {
				if k != 0 {
					in++
				}
			}
			if w.zero {
				in++
			}
			if in != len(m.order) || len(w.slots) > 4*tc.max+16 {
				t.Fatalf("%d keys in a table of %d slots, want %d", in, len(w.slots), len(m.order))
			}
		})
	}
}

// A full window that forgets a key for every new one keeps its table: at
// most half full, never grown further (a window of 65,536 keys, the
// listener's dedupe, is a table of 131,072 slots).
func TestFullWindowKeepsItsTable(t *testing.T) {
	const n = 1 << 10
	w := New[struct{}](n)
	r := rand.New(rand.NewPCG(2, 3))
	for range 20 * n {
		w.Add(r.Uint64()|1, struct{}{})
	}
	if !w.Full() || len(w.slots) != 2*n || w.n != n {
		t.Fatalf("%d keys in a table of %d slots (full %v), want %d in %d", w.n, len(w.slots), w.Full(), n, 2*n)
	}
}
