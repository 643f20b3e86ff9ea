// grapheme.go cuts text only between grapheme clusters, so a tone mark,
// vowel point or harakah never leaves the letter it belongs to.

package announce

import "github.com/rivo/uniseg"

// graphemeCut returns the largest index ≤ limit at which s may be cut
// without splitting a grapheme cluster; when the first cluster is longer
// than limit, the end of that cluster.
func graphemeCut(s string, limit int) int {
	if limit >= len(s) {
		return len(s)
	}
	cut, state := 0, -1
	rest := s
	for len(rest) > 0 {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if cut+len(cluster) > limit {
			if cut == 0 {
				return len(cluster)
			}
			return cut
		}
		cut += len(cluster)
	}
	return cut
}
