//go:build amd64

package protocol

import "unsafe"

// firstDiff returns the index of the first byte where a and b differ, or
// the length of the shorter when it is the other's beginning.
//
// It compares in SSE2's 16-byte lanes, which every amd64 has (diff, 64
// bytes a turn): about 0.3 instructions a byte, where Go's words take 0.9
// (firstDiffWords). A template's comparison reads most of each message's
// bytes so. (Small enough to be inlined: fromTemplate calls it for every
// value that changed.)
func firstDiff(a, b []byte) int {
	return diff(unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), min(len(a), len(b)))
}

// diff is firstDiff of the n bytes at a and b (firstdiff_amd64.s).
//
//go:noescape
func diff(a, b unsafe.Pointer, n int) int
