//go:build !amd64

package protocol

// firstDiff returns the index of the first byte where a and b differ, or
// the length of the shorter when it is the other's beginning.
func firstDiff(a, b []byte) int { return firstDiffWords(a, b) }
