package session

import (
	"flag"
	"io"
	"path/filepath"
	"slices"
	"testing"
)

// The term flags read values as Set and Check do: patterns expanded,
// "normal" load as the spec's "medium", the default coalescing kept.
func TestTermsAddFlags(t *testing.T) {
	var terms Terms
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	terms.AddFlags(fs)
	if err := fs.Parse([]string{"--rate", "3", "--include", "tool.*, progress.updated", "--cognitive-load", " Normal ", "--lang", "yo,en"}); err != nil {
		t.Fatal(err)
	}
	set, _, err := Terms{}.Set("include", "tool.*, progress.updated")
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

// The subscriber id follows the config directory and the user the
// environment names, and nothing else.
func TestUserSubscriberID(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/ada", "LOGNAME": "ada"}
	get := func(k string) string { return env[k] }
	if got, want := UserSubscriberID(get), SubscriberID(filepath.Join("/cfg", "aaep-term"), "ada"); got != want {
		t.Errorf("id %q, want %q", got, want)
	}
}
