package cliflag

import "fmt"

// UnknownCommand is the line a command says when its first argument names
// none of its subcommands: the name, quoted, and the nearest known one when
// a typing slip explains it ("did you mean").
func UnknownCommand(program, name string, known []string) string {
	s := fmt.Sprintf("%s: unknown command %q.", program, name)
	if near := nearest(name, known); near != "" {
		s += fmt.Sprintf(" Did you mean %s?", near)
	}
	return s
}

// nearest is the one known name within two edits of name (a letter
// missing, added, changed or two swapped), the closest when several are;
// "" when none is.
func nearest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := distance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the optimal string alignment distance between a and b, in
// bytes: insertions, deletions, substitutions and adjacent swaps.
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // not a typing slip; no quadratic work on long input
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
