package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/internal/userdir"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// addTermFlags defines the flags that shape the subscription's terms:
// --rate, --lang, --coalesce, --include, --exclude, --cognitive-load,
// --pace-wpm and --strict. --verbosity stays in flags.go; finishTerms
// copies it in.
func addTermFlags(fs *flag.FlagSet, t *session.Terms) {
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
		t.Include = patterns(s)
		return nil
	})
	fs.Func("exclude", "never these event types (critical events always pass), written as for --include: `GLOBS` such as progress.*", func(s string) error {
		t.Exclude = patterns(s)
		return nil
	})
	fs.Func("cognitive-load", "`LOAD` you want: low (fewest, shortest announcements), normal (medium) or high", func(s string) error {
		t.CognitiveLoad = cognitiveLoad(s)
		return nil
	})
	fs.IntVar(&t.PaceWPM, "pace-wpm", 0, "your listening pace in words per minute, `N` from 50 to 1000, for the producer's timing and for pacing speech and braille (180 when not given)")
	fs.BoolVar(&t.Strict, "strict", false, "close the subscription when the producer grants more than you asked for")
}

// finishTerms completes the terms once flags are parsed and checks them.
func finishTerms(o *options, getenv func(string) string) error {
	t := &o.Terms
	t.Verbosity = o.Verbosity
	// Honest capabilities (spec §5.3.1.4): a reply can be sent whenever
	// there is a back channel, since standard input takes typed answers
	// (with --json too: a program may type them), and a --policy file or
	// --auto-reply may answer when nobody types. Only a file or standard
	// input read as events cannot answer.
	t.CanConfirm = o.Demo || transport.BindingOf(o.Endpoint).Answers()
	t.CanClarify = t.CanConfirm
	if err := t.Check(); err != nil {
		return fmt.Errorf("--%w", err)
	}
	for _, w := range append(session.UnknownPatterns("include", t.Include), session.UnknownPatterns("exclude", t.Exclude)...) {
		o.IO.Eprintf("aaep-listen: %s\n", w)
	}
	o.SubscriberID = subscriberID(getenv)
	return nil
}

// subscriberID is stable for one user and configuration directory.
func subscriberID(getenv func(string) string) string {
	dir, _ := userdir.Dir(getenv) // "" when there is none: the id still names the user
	user := getenv("USER")
	if user == "" {
		user = getenv("LOGNAME")
	}
	return session.SubscriberID(dir, user)
}

// patterns reads comma-separated filter patterns the user typed.
func patterns(s string) []string {
	l := session.List(s)
	for i, p := range l {
		l[i] = session.Pattern(p)
	}
	return l
}

// cognitiveLoad accepts "normal" for the spec's "medium".
func cognitiveLoad(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "normal" {
		return "medium"
	}
	return s
}
