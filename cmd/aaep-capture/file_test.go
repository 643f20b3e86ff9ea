package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/internal/term"
)

const cleanJSONL = "../../capture/testdata/corpus/clean.jsonl"

// An endpoint that cannot be reached is exit 1 with the reason, and leaves
// no file behind: neither a stub capture nor a truncated earlier file.
func TestUnreachable(t *testing.T) {
	closed := capturetest.ClosedEndpoint(t) // nothing listens there
	for _, tt := range []struct{ name, endpoint, before string }{
		{"closed port", closed, ""},
		{"closed port, file exists", closed, "an earlier capture\n"},
		{"closed port, rotating", closed + " --rotate-size 1MB", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.aaep")
			if tt.before != "" {
				if err := os.WriteFile(out, []byte(tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			fields := strings.Fields(tt.endpoint)
			args := append([]string{"--endpoint", fields[0], "-o", out, "--connect-timeout", "5s"}, fields[1:]...)
			tio, _, _, errOut := term.Test()
			code := run(context.Background(), args, tio)
			if code != 1 || !strings.Contains(errOut.String(), "connect to "+fields[0]) {
				t.Errorf("exit %d: %s", code, errOut)
			}
			got, err := os.ReadFile(out)
			switch {
			case tt.before == "" && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("a file was left behind (%v): %q", err, got)
			case tt.before != "" && string(got) != tt.before:
				t.Errorf("the earlier file now holds %q", got)
			}
		})
	}
}

// A file endpoint that does not exist is a usage error: exit 2, saying so,
// and no capture file is made.
func TestMissingFileIsUsageError(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.aaep")
	tio, _, _, errOut := term.Test()
	code := run(context.Background(), []string{"--endpoint", "no-such-file.jsonl", "-o", out}, tio)
	if code != 2 || !strings.Contains(errOut.String(), `no such file "no-such-file.jsonl"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was left behind: %v", err)
	}
}
