package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// cleanByRune is clean's rules a rune at a time, with the runes as range
// reads them (an invalid byte is a U+FFFD of one byte): clean's
// eight-byte look must agree with it.
func cleanByRune(s string, show bool) (ok, long bool) {
	run := 0
	for i, r := range s {
		var bad bool
		if r < utf8.RuneSelf {
			bad = r < 0x20 && r != '\n' && r != '\t' || r == 0x7f
		} else {
			invalid := r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD")
			bad = invalid || r < 0xa0 || isBidiControl(r) || isLineBreak(r) || isHidden(r) ||
				r == 0x200c || r == 0x200d || show && isInvisible(r)
		}
		if bad {
			return false, run >= maxClusterRunes || hasCombinable(s[i:])
		}
		run++
		if r < 0x300 {
			run = 0
		}
		long = long || run >= maxClusterRunes
	}
	return true, long
}

// Every byte that ends a printable ASCII run, at every place in and around
// an eight-byte word, is seen as the rune-by-rune look sees it.
func TestCleanAgreesByteByByte(t *testing.T) {
	odd := []string{"\x00", "\x1f", "\t", "\n", "\x7f", " ", "~", "\x80", "\xff", "é", "\u200d", "\u202e", "\u0301", "\u2028"}
	for n := range 20 {
		for at := range n + 1 {
			for _, o := range odd {
				s := strings.Repeat("a", at) + o + strings.Repeat("b", n-at)
				for _, show := range []bool{false, true} {
					ok, long := clean(s, show)
					wok, wlong := cleanByRune(s, show)
					if ok != wok || long != wlong {
						t.Fatalf("clean(%q, %v) = %v, %v; a rune at a time %v, %v", s, show, ok, long, wok, wlong)
					}
				}
			}
		}
	}
	// A run of combining marks broken by eight ASCII bytes is two runs.
	marks := strings.Repeat("\u0301", maxClusterRunes-1)
	for _, s := range []string{marks + "abcdefgh" + marks, "é" + marks + "\u0301", "abcdefgh" + marks + "\u0301x"} {
		ok, long := clean(s, false)
		if wok, wlong := cleanByRune(s, false); ok != wok || long != wlong {
			t.Fatalf("clean(%q) = %v, %v; a rune at a time %v, %v", s, ok, long, wok, wlong)
		}
	}
}

func FuzzCleanAgrees(f *testing.F) {
	for _, s := range []string{"", "Load test progress: 12345.", "abcdefgh\x7fijk", "abcdefg\x1b[31m", "e\u0301abcdefgh", "line\nbreak\tand tab", "\u202eevil"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, show bool) {
		ok, long := clean(s, show)
		if wok, wlong := cleanByRune(s, show); ok != wok || long != wlong {
			t.Errorf("clean(%q, %v) = %v, %v; a rune at a time %v, %v", s, show, ok, long, wok, wlong)
		}
	})
}

// The table of letters and digits holds ASCII's, and no other byte.
func TestAlnumByte(t *testing.T) {
	for c := range 256 {
		want := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if got := isAlnum(byte(c)); got != want {
			t.Errorf("isAlnum(%#x) = %v, want %v", c, got, want)
		}
	}
}

// allAlnum, eight bytes at a time, agrees with isAlnum a byte at a time:
// every byte, at every place of a word and of the tail.
func TestAllAlnumAgrees(t *testing.T) {
	byByte := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if !isAlnum(s[i]) {
				return false
			}
		}
		return true
	}
	for n := range 20 {
		for at := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a0Z9", 5)[:n])
				b[at] = byte(c)
				if got, want := allAlnum(string(b)), byByte(string(b)); got != want {
					t.Fatalf("allAlnum(%q) = %v, a byte at a time %v", b, got, want)
				}
			}
		}
	}
}

func FuzzAllAlnumAgrees(f *testing.F) {
	for _, s := range []string{"", "abcdefgh", "0123456789abcdefXYZ", "abc@defg", "abcdefg[", "evt_0000", "\x80abcdefg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := true
		for i := 0; i < len(s); i++ {
			want = want && isAlnum(s[i])
		}
		if got := allAlnum(s); got != want {
			t.Errorf("allAlnum(%q) = %v, a byte at a time %v", s, got, want)
		}
	})
}
