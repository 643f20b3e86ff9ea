package protocol

import (
	"reflect"
	"testing"
)

func TestSplitTheirs(t *testing.T) {
	tests := []struct {
		in    string
		plain string
		spans []Span
	}{
		{"Finished: done.", "Finished: done.", nil},
		{"Finished: " + Theirs("تم") + ".", "Finished: تم.", []Span{{10, 14}}},
		{Theirs("a") + " and " + Theirs("b"), "a and b", []Span{{0, 1}, {6, 7}}},
		{"x\u2069y\u2068z", "xyz", []Span{{2, 3}}},
		{Theirs(""), "", nil},
	}
	for _, tt := range tests {
		plain, spans := SplitTheirs(tt.in)
		if plain != tt.plain || !reflect.DeepEqual(spans, tt.spans) {
			t.Errorf("SplitTheirs(%q) = %q %v, want %q %v", tt.in, plain, spans, tt.plain, tt.spans)
		}
	}
	// A producer cannot place marks of its own: sanitizing removes them.
	if got := Text("\u2068evil\u2069").String(); got != "evil" {
		t.Errorf("sanitized text keeps isolates: %q", got)
	}
}
