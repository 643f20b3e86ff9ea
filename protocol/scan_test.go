package protocol

import (
	"testing"
	"time"
)

// plainSlow is plain one byte at a time: the definition plain must meet.
func plainSlow(b []byte, i int, highSeen bool) int {
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 && !highSeen {
			return i
		}
	}
	return i
}

// plain, which reads eight bytes at a time and jumps to the first flagged
// one, stops exactly where a byte-at-a-time scan stops, from any start.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"", "abcdefgh", `abcdefg"`, "a\"b\\c", "\x1f ", "é", "0123456789abcdef\x00", "  \x7f\x80\xff!!!!!!!!!!", `\\\\\\\\"`} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		for _, high := range []bool{false, true} {
			if got, want := plain(b, i, high), plainSlow(b, i, high); got != want {
				t.Fatalf("plain(%q, %d, %v) = %d, want %d", b, i, high, got, want)
			}
		}
	})
}

// daysIn counts as time.Date does, leap years included.
func TestDaysIn(t *testing.T) {
	for year := 1599; year <= 2401; year++ {
		for month := 1; month <= 12; month++ {
			if got, want := daysIn(year, month), time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day(); got != want {
				t.Fatalf("daysIn(%d, %d) = %d, want %d", year, month, got, want)
			}
		}
	}
}
