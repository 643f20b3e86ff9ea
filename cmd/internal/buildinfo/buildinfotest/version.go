// Package buildinfotest checks, for a command's tests, that the command
// tells its build (--version, -version, version) as every command does.
package buildinfotest

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

// Check runs program's run with each way of asking for its version and
// checks that it exits 0 and prints its version, commit, Go version and
// AAEP version.
func Check(t *testing.T, program string, run func(args []string, tio *term.IO) int) {
	t.Helper()
	for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		tio, _, out, errOut := term.Test()
		if code := run(args, tio); code != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
		for _, want := range []string{program + " version ", "\nCommit: ", "\nGo version: go", "\nAAEP version: " + protocol.Version + "\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
	}
}
