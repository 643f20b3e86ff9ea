package acp

import (
	"encoding/json"
	"testing"
)

// The bridge's own JSON string encoder reads back as json.Marshal's does,
// whatever the string: control characters, quotes, invalid UTF-8, line
// separators.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\x00\x1f\x7f\n\r\t", "\xff\xfe", "\u2028\u2029", "é😀", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ours := appendString(nil, s)
		theirs, _ := json.Marshal(s)
		var a, b string
		if err := json.Unmarshal(ours, &a); err != nil {
			t.Fatalf("%q encodes as %s, which is not JSON: %v", s, ours, err)
		}
		_ = json.Unmarshal(theirs, &b)
		if a != b {
			t.Fatalf("%q reads back as %q, json.Marshal's as %q", s, a, b)
		}
	})
}
