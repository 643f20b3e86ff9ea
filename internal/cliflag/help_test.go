package cliflag

import (
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestPrintHelp(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("key", "", "key `FILE`")
	var b strings.Builder
	PrintHelp(&b, "Usage: x [--key FILE]\n\nFlags:\n", fs)
	if got := b.String(); !strings.HasPrefix(got, "Usage: x [--key FILE]\n\nFlags:\n  -key FILE\n") {
		t.Errorf("help:\n%s", got)
	}
}

func TestRefuse(t *testing.T) {
	var b strings.Builder
	if code := Refuse(&b, "aaep-listen key", errors.New("key takes no arguments")); code != ExitUsage ||
		b.String() != "aaep-listen key: key takes no arguments\nRun aaep-listen key --help for usage.\n" {
		t.Errorf("exit %d, %q", code, b.String())
	}
}
