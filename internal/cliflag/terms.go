package cliflag

// terms.go: the flags that shape the terms a subscriber asks a producer for.

import (
	"flag"
	"strings"

	"github.com/aaep-term/aaep-term/session"
)

// Terms defines on fs the flags that shape the terms asked for: --rate,
// --lang, --coalesce, --include, --exclude, --cognitive-load, --pace-wpm
// and --strict, as session.Terms.Set and Check read the same values. It sets the
// default Coalesce. Verbosity and the capabilities are the caller's.
func Terms(fs *flag.FlagSet, t *session.Terms) {
	t.Coalesce = []string{"sentence", "paragraph", "completion"}
	fs.IntVar(&t.Rate, "rate", 0, "ask the producer for at most `N` events per second (critical events always pass; 0: no limit)")
	fs.Func("lang", "languages you can listen to, in order of preference: `TAGS` such as yo,en", func(s string) error {
		t.Languages = session.List(s)
		return nil
	})
	fs.Func("coalesce", "where streamed output may be cut: `LIST` of none, word, sentence, paragraph, completion (default sentence,paragraph,completion)", func(s string) error {
		t.Coalesce = session.List(s)
		return nil
	})
	fs.Func("include", "only these event types, comma-separated; a trailing * matches a prefix, and agent. or aaep:agent. may be left out: `GLOBS` such as tool.*", func(s string) error {
		t.Include = session.Patterns(s)
		return nil
	})
	fs.Func("exclude", "never these event types (critical events always pass), written as for --include: `GLOBS` such as progress.*", func(s string) error {
		t.Exclude = session.Patterns(s)
		return nil
	})
	fs.Func("cognitive-load", "`LOAD` you want: low (fewest, shortest announcements), normal (medium) or high", func(s string) error {
		t.CognitiveLoad = strings.ToLower(strings.TrimSpace(s))
		if t.CognitiveLoad == "normal" { // the spec's "medium"
			t.CognitiveLoad = "medium"
		}
		return nil
	})
	fs.IntVar(&t.PaceWPM, "pace-wpm", 0, "your listening pace in words per minute, `N` from 50 to 1000, for the producer's timing and for pacing speech and braille (180 when not given)")
	fs.BoolVar(&t.Strict, "strict", false, "close the subscription when the producer grants more than you asked for")
}
