package main

import (
	"context"
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
		for _, want := range []string{"aaep-replay version ", "\nCommit: ", "\nGo version: go", "\nAAEP version: " + protocol.Version + "\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
}
