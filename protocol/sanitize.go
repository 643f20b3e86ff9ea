package protocol

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes producer text safe to show on a terminal or braille line.
// It removes C0 and C1 control characters except newline and tab, DEL, and
// whole ESC/CSI/OSC/DCS sequences; it replaces bidirectional embedding,
// override and isolate controls with nothing so text cannot be reordered
// visually; invalid UTF-8 becomes U+FFFD. Text needing no change is returned
// as is, without allocating.
func Sanitize(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b { // ESC: drop the whole sequence
			i = skipEscape(s, i+1)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i = skipString(s, i)
		case r >= 0x80 && r < 0xa0:
		case isBidiControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clean reports whether s needs no sanitizing: valid UTF-8 without control
// or bidi-control characters.
func clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r < 0xa0) || isBidiControl(r) {
			return false
		}
		i += size
	}
	return true
}

// isBidiControl reports the explicit directional formatting characters of
// UAX #9 that can reorder surrounding text: LRE, RLE, PDF, LRO, RLO, LRI, RLI,
// FSI, PDI. The marks LRM, RLM and ALM are harmless and kept.
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// skipEscape returns the index after the escape sequence whose ESC byte
// precedes s[i].
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// Two-character sequence (ESC plus intermediates and a final byte).
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips parameter and intermediate bytes and the final byte of a
// control sequence starting at s[i].
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips an OSC/DCS/SOS/PM/APC string up to its terminator: BEL,
// ESC \ or C1 ST. An unterminated string runs to the end of s.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
		i++
	}
	return i
}
