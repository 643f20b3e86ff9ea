package keywindow

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
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
// and the key 0; made with New and with NewSparse.
func TestWindowAgreesWithModel(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		t.Run(map[bool]string{false: "New", true: "NewSparse"}[sparse], func(t *testing.T) { agreesWithModel(t, sparse) })
	}
}

func agreesWithModel(t *testing.T, sparse bool) {
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
			if sparse {
				w = NewSparse[int](tc.max)
			}
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
			for _, s := range w.slots {
				if s.k != 0 {
					in++
				}
			}
			if w.zero {
				in++
			}
			if in != len(m.order) || len(w.slots) > 8*tc.max+16 || len(w.slots) > 0 && len(w.slots) < 16 {
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

// A full window of NewSparse keeps its table at most a quarter full (the
// checker's dedupe, 65,536 keys, in 262,144 slots), and every table it
// had was: no probe runs through a table more than a quarter full.
func TestSparseWindowTable(t *testing.T) {
	const n = 1 << 10
	w := NewSparse[int](n)
	r := rand.New(rand.NewPCG(2, 3))
	for i := range 20 * n {
		w.Add(r.Uint64()|1, i)
		if 4*w.n > len(w.slots) {
			t.Fatalf("after %d keys: %d keys in a table of %d slots", i+1, w.n, len(w.slots))
		}
	}
	if !w.Full() || len(w.slots) != 4*n || w.n != n {
		t.Fatalf("%d keys in a table of %d slots (full %v), want %d in %d", w.n, len(w.slots), w.Full(), n, 4*n)
	}
}

// A sparse window's table grows four times at a time, up to the table of
// a full window, no larger than doubling makes it: the tables it had on
// the way, for windows of several sizes, and the full one's size.
func TestSparseWindowGrowth(t *testing.T) {
	for _, tc := range []struct {
		max  int
		want []int
	}{
		{1, []int{16}},
		{300, []int{16, 64, 256, 1024, 2048}},
		{1000, []int{16, 64, 256, 1024, 4096}},
		{1 << 16, []int{16, 64, 256, 1024, 4096, 16384, 65536, 262144}},
	} {
		w := NewSparse[int](tc.max)
		var got []int
		for i := range 2 * tc.max {
			w.Add(uint64(i+1)*0x9e3779b97f4a7c15|1, i)
			if len(got) == 0 || got[len(got)-1] != len(w.slots) {
				got = append(got, len(w.slots))
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("a sparse window of %d keys had tables of %v slots, want %v", tc.max, got, tc.want)
		}
	}
}

// BenchmarkWindowFull is the checker's use of a window: a full window of
// 65,536 keys (NewSparse), each Add a new key (a hash), which forgets the oldest.
func BenchmarkWindowFull(b *testing.B) {
	benchFull(b, NewSparse[int](1<<16), func(i int) int { return i })
}

// benchFull fills w, a window of 65,536 keys, with random keys, then adds
// b.N more, each a new one (values of value), which forgets the oldest.
func benchFull[V any](b *testing.B, w Window[V], value func(int) V) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 1 << 16 {
		w.Add(r.Uint64(), value(i))
	}
	keys := make([]uint64, 1<<12)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	b.ResetTimer()
	for i := range b.N {
		if i%len(keys) == 0 {
			for j := range keys {
				keys[j] = r.Uint64()
			}
		}
		w.Add(keys[i%len(keys)], value(i))
	}
}

// A slot holds its key and value side by side, and the listener's
// window, of no values, is 8 bytes a slot (a struct ending in a field of
// no size is padded to 16), as its table of keys alone was.
func TestSlotSizes(t *testing.T) {
	if n := unsafe.Sizeof(slot[struct{}]{}); n != 8 {
		t.Errorf("a slot of the listener's window (no value) is %d bytes, want 8", n)
	}
	if n := unsafe.Sizeof(slot[int]{}); n != 16 {
		t.Errorf("a slot of the checker's window (a line) is %d bytes, want 16", n)
	}
}

// BenchmarkSetFull is the listener's use of a window (session's dedupe):
// a full window of 65,536 keys with no values (New), each Add a new key.
func BenchmarkSetFull(b *testing.B) {
	benchFull(b, New[struct{}](1<<16), func(int) struct{} { return struct{}{} })
}
