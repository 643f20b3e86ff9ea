// firstdiff.go: where a message first differs from its template.

package protocol

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// firstDiffWords is firstDiff in Go, for other machines than amd64 (and
// the yardstick of its assembly in tests). Whole words are read through unsafe pointers, 32 bytes a turn,
// without a bounds check each (the loop stays within both slices); the last turn
// compares the last 32 bytes, overlapping bytes already found equal, so
// that no shorter loop finishes. Where a turn finds a difference the
// words are read again, checked, to place it (at32).
func firstDiffWords(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	if n >= 32 {
		pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
		i := 0
		for ; i < n-32; i += 32 {
			if differ32(pa, pb, i) {
				return i + at32((*[32]byte)(a[i:i+32]), (*[32]byte)(b[i:i+32]))
			}
		}
		// The last 32 bytes.
		if i = n - 32; differ32(pa, pb, i) {
			return i + at32((*[32]byte)(a[i:i+32]), (*[32]byte)(b[i:i+32]))
		}
		return n
	}
	i := 0
	for ; i <= n-8; i += 8 {
		if w := binary.LittleEndian.Uint64(a[i:i+8]) ^ binary.LittleEndian.Uint64(b[i:i+8]); w != 0 {
			return i + bits.TrailingZeros64(w)/8
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// differ32 reports whether the 32 bytes at i of pa and pb differ.
func differ32(pa, pb unsafe.Pointer, i int) bool {
	// (^ and | bind alike: the parentheses are needed.)
	return (*(*uint64)(unsafe.Add(pa, i))^*(*uint64)(unsafe.Add(pb, i)))|
		(*(*uint64)(unsafe.Add(pa, i+8))^*(*uint64)(unsafe.Add(pb, i+8)))|
		(*(*uint64)(unsafe.Add(pa, i+16))^*(*uint64)(unsafe.Add(pb, i+16)))|
		(*(*uint64)(unsafe.Add(pa, i+24))^*(*uint64)(unsafe.Add(pb, i+24))) != 0
}

// at32 returns the index of the first byte where x and y differ (they do).
func at32(x, y *[32]byte) int {
	for k := 0; k < 32; k += 8 {
		if w := binary.LittleEndian.Uint64(x[k:]) ^ binary.LittleEndian.Uint64(y[k:]); w != 0 {
			return k + bits.TrailingZeros64(w)/8
		}
	}
	return 32
}
