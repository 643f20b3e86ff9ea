package transport

import "strings"

// JoinCommand writes argv as an exec: endpoint's command line that
// SplitCommand reads back word for word.
func JoinCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w == "" {
			words[i] = `""`
			continue
		}
		var b strings.Builder
		for _, r := range w {
			switch r {
			case ' ', '\t', '\'', '"', '\\':
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		words[i] = b.String()
	}
	return strings.Join(words, " ")
}
