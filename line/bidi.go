// bidi.go keeps right-to-left text in logical order inside a line, between
// Unicode direction isolates, so it cannot reorder the words around it.

package line

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/protocol"
)

// Direction isolates of UAX #9: FSI takes its direction from the first strong
// letter inside; PDI ends it. protocol.Sanitize strips any isolates and
// overrides a producer sent, so these are the only ones on the line.
const (
	fsi = "\u2068"
	pdi = "\u2069"
)

// appendIsolated appends s as appendOneLine does, between direction isolates
// when it is declared right to left or holds right-to-left letters.
func appendIsolated(b []byte, s string, rtl bool) []byte {
	if !rtl && plainLine(s) {
		return append(b, s...) // ASCII: no right-to-left letter, and one line as it is
	}
	if !rtl && !hasRTL(s) {
		return appendOneLine(b, s)
	}
	b = append(b, fsi...)
	b = appendOneLine(b, s)
	return append(b, pdi...)
}

// appendTheirs appends text as appendOneLine does, each of the producer's
// words in it (spans, see announce.Announcement.Theirs) between direction
// isolates when they are declared right to left or hold right-to-left
// letters. Our own words around them stay outside every isolate, so a label
// such as "Finished:" keeps its place and its direction.
func appendTheirs(b []byte, text string, spans []protocol.Span, rtl bool) []byte {
	at := 0
	for _, sp := range spans {
		if sp.Start < at || sp.End > len(text) || sp.Start > sp.End {
			continue // not a range of text: never dropped, it is read as ours
		}
		if at < sp.Start {
			b = appendOneLine(b, text[at:sp.Start])
		}
		b = appendIsolated(b, text[sp.Start:sp.End], rtl)
		at = sp.End
	}
	if at == len(text) {
		return b // the usual text, all the producer's: nothing of ours after it
	}
	return appendOneLine(b, text[at:])
}

// hasRTL is protocol.HasRTL, answered at once for ASCII text, eight bytes
// at a time: no letter of a right-to-left script is ASCII.
func hasRTL(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&0x8080808080808080 != 0 {
			return protocol.HasRTL(s[i:])
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return protocol.HasRTL(s[i:])
		}
	}
	return false
}
