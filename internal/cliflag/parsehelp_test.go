package cliflag

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// ParseHelp returns the operands around the flags, and on --help prints
// the usage and the flags and returns ErrHelp.
func TestParseHelp(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	n := fs.Int("n", 0, "a `NUMBER`")
	var out bytes.Buffer
	rest, err := ParseHelp(fs, []string{"a", "-n", "3", "b"}, "Usage: x\n", &out)
	if err != nil || *n != 3 || strings.Join(rest, " ") != "a b" || out.Len() != 0 {
		t.Fatalf("ParseHelp = %q, %v, n %d, printed %q", rest, err, *n, out.String())
	}
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Int("n", 0, "a `NUMBER`")
	if _, err := ParseHelp(fs, []string{"--help"}, "Usage: x\n", &out); !errors.Is(err, ErrHelp) {
		t.Fatalf("--help: %v, want ErrHelp", err)
	}
	if got := out.String(); !strings.HasPrefix(got, "Usage: x\n") || !strings.Contains(got, "-n NUMBER") {
		t.Errorf("--help printed %q", got)
	}
}
