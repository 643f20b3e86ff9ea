package cliflag

import (
	"strings"
	"testing"
)

// WriteJSON writes one document, on one line or indented, with no escape
// sequence left in any string, key or value, raw or as a \u escape.
func TestWriteJSON(t *testing.T) {
	v := map[string]any{"name\x1b[2J": "evil\u001b]0;title\u0007 \u202eword", "n": 2}
	for _, tc := range []struct {
		indent bool
		want   string
	}{
		{false, `{"n":2,"name":"evil word"}` + "\n"},
		{true, "{\n  \"n\": 2,\n  \"name\": \"evil word\"\n}\n"},
	} {
		var b strings.Builder
		if err := WriteJSON(&b, v, tc.indent); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("indent %v: %q, want %q", tc.indent, b.String(), tc.want)
		}
	}
	if err := WriteJSON(&strings.Builder{}, func() {}, false); err == nil {
		t.Error("a value that does not marshal: no error")
	}
}
