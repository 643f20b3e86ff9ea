package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/safefile/safefiletest"
)

// trace, stats, play (steered or not) and check read a gzip capture cut short: they work on
// every line before the cut and say that the file ends early.
func TestTruncatedGzipCapture(t *testing.T) {
	plain, err := os.ReadFile(corpus + "clean.aaep")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	dir := t.TempDir()
	for _, cut := range []int{z.Len() / 2, z.Len() * 3 / 4, z.Len() - 4} {
		path := filepath.Join(dir, fmt.Sprintf("cut-%d.aaep.gz", cut))
		if err := os.WriteFile(path, z.Bytes()[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"trace", path},
			{"stats", path},
			{"play", "--speed", "0", path},
			// Steered, as at a terminal: the same warning (it came only
			// when standard input was a pipe).
			{"play", "--interactive", "--speed", "0", path},
			{"check", path},
		} {
			t.Run(fmt.Sprint(cut, args[0]), func(t *testing.T) {
				code, out, errOut := runReplay(t, args...)
				if code == 2 {
					t.Fatalf("exit 2:\n%s%s", out, errOut)
				}
				if !strings.Contains(out+errOut, "gzip file ends early") {
					t.Errorf("no word of the cut:\n%s%s", out, errOut)
				}
			})
		}
	}
}

// export --output and trace --html never write through a symbolic link;
// the file it points at is left alone.
func TestOutputsRefuseSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := safefiletest.Link(t, dir, "out")
	link := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"export", "--format", "jsonl", "--output", link, corpus + "clean.aaep"},
		{"trace", "--html", link, corpus + "clean.aaep"},
	} {
		code, out, errOut := runReplay(t, args...)
		if code == 0 || !strings.Contains(errOut, "symbolic link") {
			t.Errorf("%s: exit %d:\n%s%s", args[0], code, out, errOut)
		}
		safefiletest.Intact(t, victim)
	}
	// Nor through a directory on the way that is a link.
	victimDir := t.TempDir()
	if err := os.Symlink(victimDir, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	through := filepath.Join(dir, "linked", "out")
	for _, args := range [][]string{
		{"export", "--format", "jsonl", "--output", through, corpus + "clean.aaep"},
		{"trace", "--html", through, corpus + "clean.aaep"},
	} {
		code, out, errOut := runReplay(t, args...)
		if code == 0 || !strings.Contains(errOut, "symbolic link") {
			t.Errorf("%s through a linked directory: exit %d:\n%s%s", args[0], code, out, errOut)
		}
	}
	if entries, _ := os.ReadDir(victimDir); len(entries) > 0 {
		t.Errorf("written in the linked directory: %v", entries)
	}
}
