package conform_test

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/conform"
)

// Lines hands on each line of a child's output whole, without its line
// end; a long one in pieces that never cut a character in two; what is
// left at the end on Flush.
func TestLines(t *testing.T) {
	long := strings.Repeat("x", conform.MaxShownLine-1) + "é" + "tail"
	for _, tc := range []struct {
		name   string
		writes []string
		want   []string
	}{
		{"lines", []string{"one\r\ntw", "o\nthree"}, []string{"one", "two", "three"}},
		{"long", []string{long + "\n"}, []string{strings.Repeat("x", conform.MaxShownLine-1), "étail"}},
		{"long unended", []string{strings.Repeat("y", conform.MaxShownLine+2)}, []string{strings.Repeat("y", conform.MaxShownLine), "yy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			l := &conform.Lines{Show: func(s string) { got = append(got, s) }}
			for _, w := range tc.writes {
				if n, err := l.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			l.Flush()
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("shown %q, want %q", got, tc.want)
			}
		})
	}
}
