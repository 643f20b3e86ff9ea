package line

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// plainCases are texts either side of what plainLine takes: spaces at
// every place against the eight-byte words, every edge of printable
// ASCII, and what protocol.Line changes.
var plainCases = []struct {
	s     string
	plain bool
}{
	{"", true},
	{"Load test session started.", true},
	{"Load test producer: Load test progress: 3 of 10.", true},
	{" leading and trailing ", true},
	{"1234567 ", true},
	{"1234567 8", true},
	{"1234567  8", false},      // two spaces across words
	{"12345678  ", false},      // at the start of the tail
	{"1234567 12345678", true}, // a space ending a word, none starting the next
	{"1234567 " + " 2345678", false},
	{"12  45678", false},           // inside a word
	{"12345678abcde", true},        // the tail read as the last eight bytes, overlapping
	{"12345678ab  c", false},       // two spaces in the tail
	{"1234567812345 ", true},       // a space ending the tail
	{"12345678abcd\x01", false},    // a control as the last byte
	{"12345678\x7fabc", false},     // and as the first of the tail
	{"123456789abcdef\x80", false}, // the top bit in a tail of seven
	{"123456 ! two words", false},  // a '!' after a space: marked by a borrow, sent to protocol.Line
	{"~ !\"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_`az{|}", false},
	{"tab\there", false},
	{"line\nbreak", false},
	{"del\x7f", false},
	{"esc\x1b[31m", false},
	{"caf\u00e9", false},
	{"\u05e9\u05dc\u05d5\u05dd", false},
	{strings.Repeat("abcdefg ", 8), true},
	{strings.Repeat("abcdefgh", 8) + "  ", false},
	// Two words a turn: spaces where its words meet and where turns meet.
	{"1234567  2345678abcdefgh", false},
	{"1234567 12345678abcdefgh", true},
	{"123456781234567  bcdefgh", false},
	{"123456781234567 abcdefgh", true},
	{"1234567 1234567 abcdefgh1234567 ", true},
	{"1 3456789012345 7890123456789012", true},
}

// plainRef is plainLine a byte at a time: printable ASCII, no two
// spaces in a row.
func plainRef(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' || s[i] == ' ' && i > 0 && s[i-1] == ' ' {
			return false
		}
	}
	return true
}

// plainLine says what plainRef says of texts of every length up to 40
// with one or two spaces, or one byte that is not printable, at every
// place (a '!' after a space aside: plainLine may send it to
// protocol.Line).
func TestPlainLineAsAByteAtATime(t *testing.T) {
	for n := 1; n <= 40; n++ {
		base := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH", 1)[:n])
		check := func(b []byte) {
			s := string(b)
			if got, want := plainLine(s), plainRef(s); got != want && !strings.Contains(s, " !") {
				t.Fatalf("plainLine(%q) = %v, want %v", s, got, want)
			}
		}
		for i := range n {
			for _, c := range []byte{' ', '\x00', '\x1f', '\x7f', '\x80', '\xe2', '~', '!'} {
				b := append([]byte(nil), base...)
				b[i] = c
				check(b)
				for j := i + 1; j < n; j++ {
					b2 := append([]byte(nil), b...)
					b2[j] = ' '
					check(b2)
				}
			}
		}
	}
}

// plainLine takes a text only when protocol.Line leaves it as it is and it
// holds no right-to-left letter, and it takes the lines a flood is made of.
func TestPlainLineIsALine(t *testing.T) {
	for _, c := range plainCases {
		got := plainLine(c.s)
		if got && (protocol.Line(c.s) != c.s || hasRTL(c.s)) {
			t.Errorf("plainLine(%q) = true, but protocol.Line gives %q, hasRTL %v", c.s, protocol.Line(c.s), hasRTL(c.s))
		}
		if got != c.plain && !strings.Contains(c.s, " !") {
			t.Errorf("plainLine(%q) = %v, want %v", c.s, got, c.plain)
		}
	}
}

// A line of the writer is the same whether plainLine takes its text or
// not: appendOneLine and appendIsolated as they were without it.
func TestPlainLineWritesWhatLineWrites(t *testing.T) {
	for _, c := range plainCases {
		for _, rtl := range []bool{false, true} {
			want := string(slowIsolated(nil, c.s, rtl))
			if got := string(appendIsolated(nil, c.s, rtl)); got != want {
				t.Errorf("appendIsolated(%q, %v) = %q, want %q", c.s, rtl, got, want)
			}
		}
		if got, want := string(appendOneLine(nil, c.s)), string(slowOneLine(nil, c.s)); got != want {
			t.Errorf("appendOneLine(%q) = %q, want %q", c.s, got, want)
		}
	}
}

// slowOneLine is appendOneLine through protocol.Line alone.
func slowOneLine(b []byte, s string) []byte {
	one := protocol.Line(s)
	if one == s {
		return append(b, s...)
	}
	return append(b, strings.Join(strings.Fields(one), " ")...)
}

// slowIsolated is appendIsolated through hasRTL and protocol.Line alone.
func slowIsolated(b []byte, s string, rtl bool) []byte {
	if !rtl && !hasRTL(s) {
		return slowOneLine(b, s)
	}
	b = append(b, fsi...)
	b = slowOneLine(b, s)
	return append(b, pdi...)
}

// FuzzPlainLine holds plainLine to protocol.Line and hasRTL on any text,
// and the writer's pieces to what they wrote without it.
func FuzzPlainLine(f *testing.F) {
	for _, c := range plainCases {
		f.Add(c.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if plainLine(s) && (protocol.Line(s) != s || hasRTL(s)) {
			t.Fatalf("plainLine(%q) = true, but protocol.Line gives %q, hasRTL %v", s, protocol.Line(s), hasRTL(s))
		}
		if got, want := plainLine(s), plainRef(s); got != want && !strings.Contains(s, " !") {
			t.Fatalf("plainLine(%q) = %v, a byte at a time %v", s, got, want)
		}
		if got, want := string(appendIsolated(nil, s, false)), string(slowIsolated(nil, s, false)); got != want {
			t.Fatalf("appendIsolated(%q) = %q, want %q", s, got, want)
		}
		if got, want := string(appendOneLine(nil, s)), string(slowOneLine(nil, s)); got != want {
			t.Fatalf("appendOneLine(%q) = %q, want %q", s, got, want)
		}
	})
}
