package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/safefile/safefiletest"
	"github.com/aaep-term/aaep-term/internal/term"
)

// --output, and each file of a --rotate-size series, is never written
// through a symbolic link: the recording stops with a line that says why
// and the file the link points at is left alone. An existing output file
// is made 0600.
func TestOutputSafely(t *testing.T) {
	for _, tt := range []struct {
		name  string
		link  string // the name, in the output's directory, that is a link to the victim
		flags []string
	}{
		{"output", "session.aaep", nil},
		{"rotated file", "session.aaep.1", []string{"--rotate-size", "2K"}},
		{"jsonl output", "session.aaep", []string{"--format", "jsonl"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := safefiletest.Link(t, dir, tt.link)
			tio, _, _, errOut := term.Test()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			args := append([]string{"--endpoint", "file:" + cleanJSONL, "--output", filepath.Join(dir, "session.aaep"), "--no-redact"}, tt.flags...)
			if code := run(ctx, args, tio); code == 0 {
				t.Errorf("exit 0 writing through a link: %s", errOut)
			}
			if !strings.Contains(errOut.String(), "symbolic link") {
				t.Errorf("stderr does not say why: %s", errOut)
			}
			safefiletest.Intact(t, victim)
		})
	}
	path := filepath.Join(t.TempDir(), "old.aaep")
	safefiletest.Loose(t, path)
	tio, _, _, errOut := term.Test()
	if code := run(context.Background(), []string{"--endpoint", "file:" + cleanJSONL, "--output", path}, tio); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	safefiletest.Private(t, path)
}
