package protocol

// IsBlank reports whether r is one of the characters Line and Name fold
// into one space: a space, tab or line feed, another Unicode space, a
// Hangul filler or the blank braille pattern. A writer that must keep a
// producer's text exactly (an escaped JSON file) uses it to escape the
// padding it cannot fold.
func IsBlank(r rune) bool { return isBlank(r) }
