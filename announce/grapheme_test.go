package announce

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/session"
)

func TestGraphemeCut(t *testing.T) {
	tests := []struct {
		s     string
		limit int
		want  int
	}{
		{"abc", 2, 2},
		{"abc", 5, 3},
		{"ẹ̀ẹ̀", 3, len("ẹ̀")}, // the first cluster is 5 bytes: it is kept whole
		{"aẹ̀b", 3, 1},
		{"aẹ̀b", 6, 6},
		{"שָׁלוֹם", 4, len("שָׁ")}, // shin with qamats and shin dot
	}
	for _, tt := range tests {
		if got := graphemeCut(tt.s, tt.limit); got != tt.want {
			t.Errorf("graphemeCut(%q, %d) = %d, want %d", tt.s, tt.limit, got, tt.want)
		}
	}
}

// A long streamed output without spaces is cut only between clusters.
func TestLongOutputCutBetweenClusters(t *testing.T) {
	r := &recorder{}
	a := New(Config{}, r)
	word := strings.Repeat("e\u0323\u0300", 3000) // e with dot below and grave, decomposed; no space, no full stop
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: chunk("s1", "o1", word, "none", false)})
	a.Flush(t0)
	if len(r.got) < 2 {
		t.Fatalf("got %d pieces, want the output cut", len(r.got))
	}
	var all strings.Builder
	for _, an := range r.got {
		if r, _ := utf8.DecodeRuneInString(an.Text); unicode.Is(unicode.Mn, r) {
			t.Fatalf("a piece starts inside a cluster: %q", an.Text[:10])
		}
		all.WriteString(an.Text)
	}
	if all.String() != word {
		t.Fatal("pieces do not add up to the output")
	}
}
