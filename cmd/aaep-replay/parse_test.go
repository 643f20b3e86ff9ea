package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// After "--" every argument is a file, even one that starts with a dash.
func TestParseAfterDoubleDash(t *testing.T) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.Bool("json", false, "")
	files, err := parse(fs, []string{"a.aaep", "--json", "--", "-b.aaep", "--json"}, "", io.Discard)
	if err != nil || !slices.Equal(files, []string{"a.aaep", "-b.aaep", "--json"}) {
		t.Errorf("files %q, err %v; want [a.aaep -b.aaep --json]", files, err)
	}
}
