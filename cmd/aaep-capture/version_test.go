package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo/buildinfotest"
	"github.com/aaep-term/aaep-term/internal/term"
)

// --version, -version and version print the build's version, commit, Go
// version and AAEP version, and exit 0.
func TestVersion(t *testing.T) {
	buildinfotest.Check(t, "aaep-capture", func(args []string, tio *term.IO) int { return run(context.Background(), args, tio) })
}

// An endpoint that names nothing is a usage error (exit 2), found before
// the output file is made.
func TestEndpointUsageError(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ endpoint, say string }{
		{dir + "/nosuch.jsonl", "no such file"},
		{"htp://localhost:8080", "unknown scheme"},
		{"http://", "names no host"},
	} {
		tio, _, _, errOut := term.Test()
		out := dir + "/out.aaep"
		code := run(context.Background(), []string{"--endpoint", tt.endpoint, "--output", out}, tio)
		if code != 2 || !strings.Contains(errOut.String(), tt.say) {
			t.Errorf("%s: exit %d, %q; want 2 saying %q", tt.endpoint, code, errOut, tt.say)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s was made", tt.endpoint, out)
		}
	}
}
