package announce

// once.go: no sentence twice in one prompt. A producer's summary often
// says again what its fields say ("This cannot be undone."), and so do we.

import (
	"regexp"
	"strings"
)

// Marks of the producer's words (protocol.Theirs).
const (
	markOpen  = "\u2068"
	markClose = "\u2069"
)

// sentenceBreak is where a sentence ends: its mark, any closing quote,
// bracket or mark of the producer's words, then space.
var sentenceBreak = regexp.MustCompile(`[.?!…]["'”’)\x{2069}]*\s+`)

// once drops from s each sentence that s said earlier, keeping the marks
// around the producer's words balanced, and tidies the spaces.
func once(s string) string {
	var (
		out   []string
		carry string // opening marks of a dropped sentence, for the next
		seen  = map[string]bool{}
	)
	for _, sent := range splitSentences(s) {
		k := sentenceKey(sent)
		if k == "" || !seen[k] {
			seen[k] = true
			out = append(out, carry+sent)
			carry = ""
			continue
		}
		// Dropped: its marks stay, closing ones with what came before,
		// opening ones with what comes after.
		for _, r := range sent {
			switch string(r) {
			case markOpen:
				carry += markOpen
			case markClose:
				if carry != "" {
					carry = carry[:len(carry)-len(markOpen)]
				} else if len(out) > 0 {
					out[len(out)-1] += markClose
				}
			}
		}
	}
	if carry != "" && len(out) > 0 {
		out[len(out)-1] += carry
	}
	return tidy(strings.ReplaceAll(strings.Join(out, " "), markOpen+markClose, ""))
}

// splitSentences cuts s after each sentence's end; the pieces keep their
// marks, and lose the spaces between them.
func splitSentences(s string) []string {
	var parts []string
	start := 0
	for _, loc := range sentenceBreak.FindAllStringIndex(s, -1) {
		if p := strings.TrimSpace(s[start:loc[1]]); p != "" {
			parts = append(parts, p)
		}
		start = loc[1]
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		parts = append(parts, p)
	}
	return parts
}

// label is a label before a sentence's words ("Consequence: ").
var label = regexp.MustCompile(`^\p{Lu}\p{Ll}+(?: \p{Ll}+)?: `)

// sentenceKey is how two sentences are told to be the same: without
// marks, a label, case, spaces and final punctuation.
func sentenceKey(s string) string {
	s = strings.NewReplacer(markOpen, "", markClose, "").Replace(s)
	s = label.ReplaceAllString(s, "")
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRight(s, `.?!…"'”’) `)
}
