// bidi.go keeps right-to-left text in logical order inside a line, between
// Unicode direction isolates, so it cannot reorder the words around it.

package line

import (
	"unicode"
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
	if !rtl && !hasRTL(s) {
		return appendOneLine(b, s)
	}
	b = append(b, fsi...)
	b = appendOneLine(b, s)
	return append(b, pdi...)
}

// hasRTL reports whether s holds a letter of a right-to-left script.
func hasRTL(s string) bool {
	for _, r := range s {
		if r >= 0x0590 && (unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko,
			unicode.Samaritan, unicode.Mandaic, unicode.Adlam, unicode.Hanifi_Rohingya, unicode.Yezidi)) {
			return true
		}
	}
	return false
}
