// Package prose holds the small rules every sentence the tools say follows:
// one full stop at the end of a sentence, never two, whatever punctuation a
// producer's text already ends with, and numbers agreeing with their nouns.
package prose

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// isEnder reports a mark that ends a sentence: Latin, ellipsis, CJK,
// Arabic and Urdu stops, question and exclamation marks.
func isEnder(r rune) bool {
	switch r {
	case '.', '!', '?', '…', '。', '？', '！', '؟', '۔', '‼', '⁇', '⁈', '⁉':
		return true
	}
	return false
}

// isCloser reports a mark that may follow a sentence's last mark: quotes,
// brackets, and the mark that ends a producer's words (protocol.Theirs).
func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '»', '”', '’', '›', '」', '』', '】', '\u2069':
		return true
	}
	return false
}

// isWeak reports a mark that ends a phrase, not a sentence: "Context:"
// becomes "Context.".
func isWeak(c byte) bool { return c == ',' || c == ';' || c == ':' }

// trimBlanks cuts the spaces and tabs s ends with.
func trimBlanks(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}

// trimClosers cuts the closing marks s ends with.
func trimClosers(s string) string {
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		if !isCloser(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// Ends reports whether s, ignoring trailing spaces, already ends a sentence:
// its last mark is one of . ! ? … (or a CJK or Arabic stop), possibly
// followed by closing quotes or brackets.
func Ends(s string) bool {
	s = trimClosers(trimBlanks(s))
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && isEnder(r)
}

// Stop ends s as a sentence: a full stop is added only when s does not
// already end one (see Ends); a trailing comma, colon or semicolon is
// replaced. Trailing spaces go; empty text stays empty.
func Stop(s string) string {
	body, tail, dot := stop(s)
	if !dot {
		return body
	}
	return body + tail + "."
}

// stop is Stop in pieces, so that Join can build its text without a
// string for each sentence: s ended is body+tail, then "." when dot.
func stop(s string) (body, tail string, dot bool) {
	s = trimBlanks(s)
	b := trimClosers(s)
	if r, _ := utf8.DecodeLastRuneInString(b); s == "" || b != "" && isEnder(r) {
		return s, "", false
	}
	// A comma, colon or semicolon before the closers gives way to the stop.
	i := len(b)
	for i > 0 && (isWeak(b[i-1]) || b[i-1] == ' ' || b[i-1] == '\t') {
		i--
	}
	return b[:i], s[len(b):], true
}

// Join joins the non-empty parts as sentences, each ended by Stop, with one
// space between them.
func Join(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p) + 2 // the stop and the space at most
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		body, tail, dot := stop(strings.TrimSpace(p))
		if body == "" && tail == "" && !dot {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(body)
		b.WriteString(tail)
		if dot {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// Count says n with its noun: "1 reply", "2 replies", "0 replies".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// List joins items as a person lists them: "a", "a and b", "a, b and c".
func List(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Sentence makes s, such as an error message, a sentence to be read: its
// first letter a capital, and ended by Stop.
func Sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return Stop(string(unicode.ToUpper(r)) + s[n:])
}

// Cut is s cut to at most n characters, the last of them "…" when it is
// cut: a name from outside the program never takes the place of the words
// around it.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
		}
		count++
		if count > n {
			return s[:i] + "…"
		}
	}
	return s
}
