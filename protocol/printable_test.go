package protocol

import (
	"strings"
	"testing"
)

// printableCases are texts on both sides of what Sanitize takes as it is:
// printable ASCII of every length round eight, and each byte that is not
// (controls, DEL, the top bit) at every place in a word.
func printableCases() []string {
	cases := []string{"", "a", "Load test progress: 1234567.", "two  spaces", "~ !", strings.Repeat("x", 100),
		"caf\u00e9", "\u202eevil", "a\u200bb", "e" + strings.Repeat("\u0301", 20), "\xff\xfe"}
	for _, bad := range []byte{0, '\t', '\n', '\r', 0x1b, 0x1f, 0x7f, 0x80, 0xc2, 0xff} {
		for n := 1; n <= 17; n++ {
			for at := 0; at < n; at++ {
				b := []byte(strings.Repeat("w", n))
				b[at] = bad
				cases = append(cases, string(b))
			}
		}
	}
	return cases
}

// TestSanitizeTakesPrintableAsItIs: Sanitize's shortcut for printable
// ASCII gives what its full path gives, and is taken only for such text.
func TestSanitizeTakesPrintableAsItIs(t *testing.T) {
	for _, c := range printableCases() {
		if got, want := Sanitize(c), sanitizeAs(c, false); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", c, got, want)
		}
		want := !strings.ContainsFunc(c, func(r rune) bool { return r < ' ' || r > '~' })
		if got := printableASCII(c); got != want {
			t.Errorf("printableASCII(%q) = %v, want %v", c, got, want)
		}
	}
}

func FuzzSanitizeShortcut(f *testing.F) {
	for _, c := range printableCases() {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Sanitize(s), sanitizeAs(s, false); got != want {
			t.Fatalf("Sanitize(%q) = %q, want %q", s, got, want)
		}
	})
}
