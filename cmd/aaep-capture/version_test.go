package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

// --version and version print the build's version, commit, Go version
// and AAEP version, and exit 0.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		tio, _, out, errOut := term.Test()
		if code := run(context.Background(), args, tio); code != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
		for _, want := range []string{"aaep-capture version ", "\nCommit: ", "\nGo version: go", "\nAAEP version: " + protocol.Version + "\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
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
