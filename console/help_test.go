package console

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/internal/golden"
)

// Typed help is short lines, one per command, and help COMMAND says more
// about one, each a sentence: a braille display shows each line in two
// pieces of forty cells at most, time included (it was one line of about
// 1,000 characters before). testdata/help.golden holds what is said.
func TestTypedHelpIsShortLines(t *testing.T) {
	t.Parallel()
	r := newRig(t, "http://127.0.0.1:1")
	typed := []string{"help"}
	for _, tp := range helpTopics {
		typed = append(typed, "help "+tp.words[0])
	}
	typed = append(typed, "HELP Accept 2", "h quit")
	var all strings.Builder
	for _, s := range typed {
		r.out.Reset()
		r.command(s)
		lines := strings.Split(strings.TrimSuffix(r.out.String(), "\n"), "\n")
		if r.out.Len() == 0 {
			t.Errorf("%q said nothing", s)
		}
		all.WriteString("> " + s + "\n")
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > helpWidth {
				t.Errorf("%q says a line of %d characters, more than %d: %s", s, n, helpWidth, l)
			}
			all.WriteString(l + "\n")
		}
	}
	if n := strings.Count(all.String(), "\n") - len(typed); n > 120 {
		t.Errorf("help says %d lines in all", n)
	}
	golden.Check(t, "testdata/help.golden", all.String())
}

// Every word that starts a command has help of its own, and help followed
// by a word that is no command stays text (it may answer a question).
func TestHelpCommandParses(t *testing.T) {
	t.Parallel()
	for _, tp := range helpTopics {
		for _, w := range tp.words {
			if c := command.Parse("help " + w); c.Verb != command.VerbHelp || c.Arg != w {
				t.Errorf("help %s parses as %v %q", w, c.Verb, c.Arg)
			}
			if got := helpLines(w); strings.HasPrefix(got[0], "No command") {
				t.Errorf("help %s: %s", w, got[0])
			}
		}
	}
	for _, s := range []string{"help me", "help me choose", "h i"} {
		if c := command.Parse(s); c.Verb != command.VerbText {
			t.Errorf("%q parses as %v; want text, an answer", s, c.Verb)
		}
	}
}

// An accept of high risk that cannot be undone takes a second step, typing
// yes (issue 24 items 10, 12): typed help and help accept say so, and
// help accept says when and what anything else does.
func TestHelpTellsTheSecondStep(t *testing.T) {
	t.Parallel()
	for topic, want := range map[string][]string{
		"":       {"type yes"},
		"accept": {"cannot be undone", "type yes", "sends nothing"},
	} {
		said := strings.Join(helpLines(topic), "\n")
		for _, w := range want {
			if !strings.Contains(said, w) {
				t.Errorf("help %s does not say %q:\n%s", topic, w, said)
			}
		}
	}
}
