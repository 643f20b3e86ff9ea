package console

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Only no input at all, or the null device, is known before listening to
// bring nothing: a pipe, a file or a terminal may still bring answers.
func TestNoInput(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "answers"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tc := range []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"none", nil, true},
		{"the null device", null, true},
		{"a pipe", r, false},
		{"a file", file, false},
		{"a reader", strings.NewReader("accept 1\n"), false},
	} {
		if got := noInput(tc.in); got != tc.want {
			t.Errorf("%s: noInput %v, want %v", tc.name, got, tc.want)
		}
	}
}
