// theirs.go marks where a producer's words sit inside a sentence of ours, so
// that the line writer can isolate only them, never our English labels.

package protocol

import "strings"

// The marks are the Unicode first-strong and pop directional isolates.
// Sanitize removes every isolate a producer sends, so inside a sentence
// built from sanitized text these are ours alone; an output that does not
// know them sanitizes them away like any other.
const (
	theirsOpen  = "\u2068"
	theirsClose = "\u2069"
)

// Theirs marks s, a producer's sanitized words, inside a sentence of ours.
// Blanks at its edges are dropped, so they cannot double the spaces of the
// sentence around them; empty or blank s becomes empty.
func Theirs(s string) string {
	s = strings.TrimFunc(s, isBlank)
	if s == "" {
		return ""
	}
	return theirsOpen + s + theirsClose
}

// Span is a byte range [Start, End) of a text.
type Span struct{ Start, End int }

// SplitTheirs removes the marks Theirs put in s and returns the plain text
// with the byte ranges of the producer's words in it, in order. A mark
// without its partner is dropped; marks do not nest.
func SplitTheirs(s string) (string, []Span) {
	if !strings.Contains(s, theirsOpen) && !strings.Contains(s, theirsClose) {
		return s, nil
	}
	// The usual case, a producer's words alone, needs no new text.
	if inner, ok := strings.CutPrefix(s, theirsOpen); ok {
		if inner, ok := strings.CutSuffix(inner, theirsClose); ok && inner != "" &&
			!strings.Contains(inner, theirsOpen) && !strings.Contains(inner, theirsClose) {
			return inner, []Span{{0, len(inner)}}
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	var spans []Span
	open := -1
	for len(s) > 0 {
		i := strings.IndexAny(s, theirsOpen+theirsClose)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		mark := s[i : i+len(theirsOpen)]
		s = s[i+len(theirsOpen):]
		switch {
		case mark == theirsOpen && open < 0:
			open = b.Len()
		case mark == theirsClose && open >= 0:
			if b.Len() > open {
				spans = append(spans, Span{open, b.Len()})
			}
			open = -1
		}
	}
	if open >= 0 && b.Len() > open {
		spans = append(spans, Span{open, b.Len()})
	}
	return b.String(), spans
}
