package cliflag

import (
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
