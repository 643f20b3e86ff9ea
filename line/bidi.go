// bidi.go keeps right-to-left text in logical order inside a line, between
// Unicode direction isolates, so it cannot reorder the words around it.

package line

import "github.com/aaep-term/aaep-term/protocol"

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
	if !rtl && !protocol.HasRTL(s) {
		return appendOneLine(b, s)
	}
	b = append(b, fsi...)
	b = appendOneLine(b, s)
	return append(b, pdi...)
}
