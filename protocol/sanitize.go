package protocol

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// The sanitizer is the one door between untrusted text (from a producer, a
// capture file, an HTTP answer or a child process) and anything a person
// reads or hears: a terminal, a braille line, speech or a notification.
// It has three forms, each idempotent, each the previous one plus a rule:
//
//   - [Sanitize] for prose that may span lines;
//   - [Line] for a single-line place (a line, a TUI row, a status, a title);
//   - [Name] for identifiers and names, where two different values must
//     never look the same.

// maxClusterRunes bounds one grapheme cluster (a base character and what
// joins it). No script needs more; a hostile run of a million combining
// marks, joiners or Hangul jamo would otherwise be one "character" that a
// terminal, a wrapper or a braille translator has to swallow whole.
const maxClusterRunes = 32

// Sanitize makes producer text safe to show on a terminal or braille line.
// It removes C0 and C1 control characters except tab, DEL, and whole
// ESC/CSI/OSC/DCS sequences; every line break (CR LF, CR, VT, FF, NEL,
// U+2028, U+2029) becomes one "\n"; it removes bidirectional embedding,
// override and isolate controls so text cannot be reordered visually, and
// invisible format characters (zero-width space, word joiner, BOM, tags,
// invisible operators) that only serve to hide or disguise text; a
// zero-width joiner or non-joiner is kept only between two non-ASCII
// characters, where scripts and emoji use it. Invalid UTF-8 becomes U+FFFD.
// A grapheme cluster longer than 32 runes is cut. Text needing no change is
// returned as is, without allocating.
func Sanitize(s string) string {
	if printableASCII(s) {
		return s // as most text is: nothing to change
	}
	return sanitizeAs(s, false)
}

// printableASCII reports whether every byte of s is printable ASCII
// (space to '~'), which Sanitize leaves as it is: eight bytes a word, the
// last word overlapping the one before.
func printableASCII(s string) bool {
	if len(s) < 8 {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < ' ' || c > '~' {
				return false
			}
		}
		return true
	}
	for i := 0; ; i += 8 {
		i = min(i, len(s)-8)
		// No top bit, none below a space, none that 0x7f becomes 0x80
		// by adding one. (The conversion copies nothing.)
		if x := binary.LittleEndian.Uint64([]byte(s[i : i+8])); (x|(x-lanesSpace)|(x+lanes1))&lanesHigh != 0 {
			return false
		}
		if i == len(s)-8 {
			return true
		}
	}
}

// Line is [Sanitize] for a single-line place: every run of line breaks,
// tabs, spaces and characters that look like spaces becomes one space, so
// producer text can never start a line of its own, nor pad itself to the
// terminal's width so that the terminal wraps it onto a row of its own.
func Line(s string) string { return fold(sanitizeAs(s, false)) }

// Name is [Line] for identifiers and names (agent, session, event and tool
// names, event types): every invisible character — zero-width space, joiner
// and non-joiner, word joiner, BOM, direction marks, soft hyphen, Hangul
// fillers, variation selectors not after a non-ASCII character, tags — is
// shown as <U+XXXX>, so two values that differ never look the same.
func Name(s string) string { return fold(sanitizeAs(s, true)) }

// sanitizeAs is [Sanitize], showing invisible characters as codes when show is set.
func sanitizeAs(s string, show bool) string {
	ok, long := clean(s, show)
	if !ok {
		s = sanitize(s, show)
	}
	if long {
		s = capClusters(s)
	}
	return s
}

func sanitize(s string, show bool) string {
	var b strings.Builder
	b.Grow(len(s))
	var prev rune // the last rune written
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
			r = utf8.RuneError
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			r = '\n'
		case isLineBreak(r):
			r = '\n'
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f:
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i)
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i = skipString(s, i)
			continue
		case r >= 0x80 && r < 0xa0, isBidiControl(r):
			continue
		case show && isInvisible(r):
			if isVariationSelector(r) && joins(prev) {
				break
			}
			fmt.Fprintf(&b, "<U+%04X>", r)
			prev = '>'
			continue
		case isHidden(r):
			continue
		case r == 0x200c || r == 0x200d: // ZWNJ, ZWJ: only inside non-ASCII text
			if next, _ := utf8.DecodeRuneInString(s[i:]); !joins(prev) || !joins(next) {
				continue
			}
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// joins reports whether r is a visible non-ASCII character that the
// sanitizer keeps: the context in which joiners and variation selectors
// have a use. A blank is none (the single-line forms fold it to a space,
// beside which a joiner is dropped), nor is the end of the text
// (utf8.RuneError, as DecodeRuneInString reports it).
func joins(r rune) bool {
	return r >= 0xa0 && r != utf8.RuneError && !isBlank(r) && !isBidiControl(r) && !isInvisible(r) && !isLineBreak(r)
}

// clean reports whether s needs no sanitizing: valid UTF-8 without control,
// line-break, bidi-control or hidden characters, joiners (checked in
// context by sanitize), nor when show is set invisible ones. long reports a
// run of 32 or more runes at or above U+0300, where a grapheme cluster
// might be too long; only then are clusters measured.
func clean(s string, show bool) (ok, long bool) {
	run := 0
	for i := 0; i < len(s); {
		if i <= len(s)-8 {
			// Eight bytes at a time while they are printable ASCII
			// (0x20 to 0x7e: no top bit, none below a space, none
			// that 0x7f becomes 0x80 by adding one), as most text is.
			// (The conversion copies nothing: the bytes are only read.)
			x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
			if (x|(x-lanesSpace)|(x+lanes1))&lanesHigh == 0 {
				run = 0
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false, run >= maxClusterRunes || hasCombinable(s[i:])
			}
			run = 0
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r < 0xa0) || isBidiControl(r) || isLineBreak(r) ||
			isHidden(r) || r == 0x200c || r == 0x200d || (show && isInvisible(r)) {
			return false, run >= maxClusterRunes || hasCombinable(s[i:])
		}
		if r >= 0x300 {
			if run++; run >= maxClusterRunes {
				long = true
			}
		} else {
			run = 0
		}
		i += size
	}
	return true, long
}

// hasCombinable reports a rune at or above U+0300 in s.
func hasCombinable(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= 0x300 }) >= 0
}

// capClusters cuts every grapheme cluster of s to maxClusterRunes runes.
func capClusters(s string) string {
	var b strings.Builder
	state := -1
	cut := false
	for rest := s; rest != ""; {
		var cluster string
		before := len(s) - len(rest)
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if utf8.RuneCountInString(cluster) > maxClusterRunes {
			if !cut {
				b.Grow(len(s))
				b.WriteString(s[:before])
				cut = true
			}
			k := 0
			for range maxClusterRunes {
				_, size := utf8.DecodeRuneInString(cluster[k:])
				k += size
			}
			cluster = cluster[:k]
			state = -1
		}
		if cut {
			b.WriteString(cluster)
		}
	}
	if !cut {
		return s
	}
	return b.String()
}

// fold turns every run of blanks in sanitized s — line breaks, tabs,
// spaces, and the characters that look like spaces (see [isBlank]) — into
// one space, so producer text cannot pad itself to the width of a terminal
// and wrap into a row of its own.
func fold(s string) string {
	i := foldFrom(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	blank := false
	for _, r := range s[i:] {
		if isBlank(r) {
			if !blank {
				b.WriteByte(' ')
			}
			blank = true
			continue
		}
		blank = false
		b.WriteRune(r)
	}
	return b.String()
}

// blankByte marks the bytes that may begin a blank: space, tab, LF, and
// the lead bytes of the blanks beyond ASCII.
var blankByte = [256]bool{' ': true, '\t': true, '\n': true, 0xc2: true, 0xe1: true, 0xe2: true, 0xe3: true, 0xef: true}

// foldFrom returns where in s the first run of blanks that fold changes
// begins, or -1: a run of two or more, or a blank other than a space. While
// s is ASCII it reads eight bytes at a time, marking the lanes that hold a
// space, tab or LF exactly (ASCII lanes plus 0x7f never carry into the
// next lane); from the first word with something to fold, or beyond
// ASCII, it goes on a byte at a time.
func foldFrom(s string) int {
	i, space := 0, false // space: s[i-1] is a space
	for ; i <= len(s)-8; i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&lanesHigh != 0 {
			break
		}
		sp := ^((x ^ lanesSpace) + lanes7f) & lanesHigh
		tab, lf := (x^lanesTab)+lanes7f, (x^lanesLF)+lanes7f
		breaks := ^(tab & lf) & lanesHigh // a lane is a tab or LF where either sum lacks its top bit
		if breaks != 0 || sp&(sp<<8) != 0 || space && sp&0x80 != 0 {
			break
		}
		space = sp>>63 != 0
	}
	run := -1 // where the run of spaces s[i] is in began
	if space {
		run = i - 1
	}
	for ; i < len(s); i++ {
		c := s[i]
		if !blankByte[c] {
			run = -1
			continue
		}
		if c == ' ' {
			if run >= 0 {
				return run
			}
			run = i
			continue
		}
		if c >= utf8.RuneSelf {
			if r, _ := utf8.DecodeRuneInString(s[i:]); !isBlank(r) {
				run = -1
				continue // its other bytes are never blank bytes
			}
		}
		if run >= 0 {
			return run
		}
		return i
	}
	return -1
}

const (
	lanes7f  = 0x7f * lanes1
	lanesTab = '\t' * lanes1
	lanesLF  = '\n' * lanes1
)

// isBlank reports the characters a single-line form folds: space, tab, LF,
// the other Unicode spaces (no-break, Ogham, en to hair, narrow no-break,
// medium mathematical, ideographic) and the characters shown as blank
// space: Hangul fillers and the blank braille pattern.
func isBlank(r rune) bool {
	switch {
	case r == ' ', r == '\t', r == '\n', r == 0xa0, r == 0x1680:
	case r >= 0x2000 && r <= 0x200a, r == 0x202f, r == 0x205f, r == 0x3000:
	case r == 0x3164, r == 0xffa0, r == 0x2800:
	default:
		return false
	}
	return true
}

// isLineBreak reports the line and paragraph breaks other than LF and CR:
// VT, FF, NEL, U+2028 and U+2029.
func isLineBreak(r rune) bool {
	return r == 0x0b || r == 0x0c || r == 0x85 || r == 0x2028 || r == 0x2029
}

// isHidden reports invisible format characters with no use in prose that
// outweighs hiding text: zero-width space, word joiner, invisible
// operators, deprecated format controls, BOM, interlinear annotation
// controls, Mongolian vowel separator, shorthand format controls, musical
// symbol formatting and tags.
func isHidden(r rune) bool {
	switch {
	case r == 0x200b, r == 0x180e, r == 0xfeff:
	case r >= 0x2060 && r <= 0x2064, r >= 0x206a && r <= 0x206f:
	case r >= 0xfff9 && r <= 0xfffb:
	case r >= 0x1bca0 && r <= 0x1bca3, r >= 0x1d173 && r <= 0x1d17a:
	case r >= 0xe0000 && r <= 0xe007f:
	default:
		return false
	}
	return true
}

// isInvisible reports every character [Name] makes visible: the hidden ones,
// joiners, direction marks, soft hyphen, combining grapheme joiner, Hangul
// fillers, Khmer inherent vowels, Mongolian variation selectors and
// variation selectors.
func isInvisible(r rune) bool {
	switch {
	case isHidden(r), isVariationSelector(r):
	case r == 0x00ad, r == 0x034f, r == 0x061c, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
	case r == 0x17b4, r == 0x17b5, r >= 0x180b && r <= 0x180f:
	case r >= 0x200c && r <= 0x200f:
	default:
		return false
	}
	return true
}

// isVariationSelector reports U+FE00–U+FE0F and U+E0100–U+E01EF.
func isVariationSelector(r rune) bool {
	return (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0xe0100 && r <= 0xe01ef)
}

// isBidiControl reports the explicit directional formatting characters of
// UAX #9 that can reorder surrounding text: LRE, RLE, PDF, LRO, RLO, LRI, RLI,
// FSI, PDI. The marks LRM, RLM and ALM are harmless in prose and kept.
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
