package prose

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The marks as cut sets, as Stop and Ends were first written with them.
const enders, closers, weak = ".!?…。？！؟۔‼⁇⁈⁉", "\"')]}»”’›」』】\u2069", ",;:"

// endsAsBefore is Ends the slow way, with strings.ContainsRune.
func endsAsBefore(s string) bool {
	s = strings.TrimRight(s, " \t")
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		switch {
		case strings.ContainsRune(enders, r):
			return true
		case strings.ContainsRune(closers, r):
			s = s[:len(s)-n]
		default:
			return false
		}
	}
	return false
}

// stopAsBefore is Stop the slow way, with strings.TrimRight.
func stopAsBefore(s string) string {
	s = strings.TrimRight(s, " \t")
	if s == "" || endsAsBefore(s) {
		return s
	}
	b := strings.TrimRight(s, closers)
	return strings.TrimRight(b, weak+" \t") + s[len(b):] + "."
}

// Stop and Ends answer as the cut sets did, whatever the text ends with.
func FuzzStopAgrees(f *testing.F) {
	for _, s := range []string{"", " ", "Done", "Done. ", "(see the bill)", "“yes?”", "Context:\t", "a ,:;\u2069 ", "\xff", "x\xe2\x81", "?)\u2069", "؟", ")", "one,”", enders, closers, weak} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Stop(s), stopAsBefore(s); got != want {
			t.Errorf("Stop(%q) = %q, before %q", s, got, want)
		}
		if got, want := Ends(s), endsAsBefore(s); got != want {
			t.Errorf("Ends(%q) = %v, before %v", s, got, want)
		}
	})
}

// BenchmarkJoin joins a sentence of ours and a producer's words, as a tool
// call is said.
func BenchmarkJoin(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Join("Using fetch report", "\u2068the March figures\u2069")
	}
}
