package announce

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// sanitizedCases are summaries on both sides of what sanitized takes as
// it is: printable ASCII of every length round eight, and each byte that
// is not (controls, DEL, the top bit) at every place in a word.
func sanitizedCases() []string {
	cases := []string{"", "a", "Load test progress: 1234567.", "two  spaces", "~ !", strings.Repeat("x", 100),
		"caf\u00e9", "\u202eevil", "a\u200bb", "e\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301\u0301", "\xff\xfe"}
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

// TestSanitizedIsString: a summary read through sanitized is what
// protocol.Text.String makes of it, taken as it is or not.
func TestSanitizedIsString(t *testing.T) {
	for _, c := range sanitizedCases() {
		if got, want := sanitized(protocol.Text(c)), protocol.Text(c).String(); got != want {
			t.Errorf("sanitized(%q) = %q, want %q", c, got, want)
		}
	}
}

func FuzzSanitized(f *testing.F) {
	for _, c := range sanitizedCases() {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := sanitized(protocol.Text(s)), protocol.Text(s).String(); got != want {
			t.Fatalf("sanitized(%q) = %q, want %q", s, got, want)
		}
	})
}
