package cliflag

import (
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/aaep-term/aaep-term/session"
)

// The term flags read values as Set and Check do: patterns expanded,
// "normal" load as the spec's "medium", the default coalescing kept.
func TestTerms(t *testing.T) {
	var terms session.Terms
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	Terms(fs, &terms)
	if err := fs.Parse([]string{"--rate", "3", "--include", "tool.*, progress.updated", "--cognitive-load", " Normal ", "--lang", "yo,en"}); err != nil {
		t.Fatal(err)
	}
	set, _, err := session.Terms{}.Set("include", "tool.*, progress.updated")
	if err != nil {
		t.Fatal(err)
	}
	if terms.Rate != 3 || !slices.Equal(terms.Include, set.Include) || terms.CognitiveLoad != "medium" ||
		!slices.Equal(terms.Languages, []string{"yo", "en"}) || len(terms.Coalesce) != 3 {
		t.Errorf("terms %+v", terms)
	}
	if err := terms.Check(); err != nil {
		t.Errorf("flags gave terms Check refuses: %v", err)
	}
}
