package session

import "testing"

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
