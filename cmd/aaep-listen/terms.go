package main

import (
	"fmt"

	"github.com/aaep-term/aaep-term/session"
)

// finishTerms completes the terms once flags are parsed and checks them.
func finishTerms(o *options, getenv func(string) string) error {
	t := &o.Terms
	t.Verbosity = o.Verbosity
	// Honest capabilities (spec §5.3.1.4): a reply can be sent whenever
	// there is a back channel, since standard input takes typed answers
	// (with --json too: a program may type them), and a --policy file or
	// --auto-reply may answer when nobody types. Only a file or standard
	// input read as events cannot answer.
	t.CanConfirm = o.mayAnswer() // each agent's own binding is checked again (agentSpecs)
	t.CanClarify = t.CanConfirm
	if err := t.Check(); err != nil {
		return fmt.Errorf("--%w", err)
	}
	for _, w := range append(session.UnknownPatterns("include", t.Include), session.UnknownPatterns("exclude", t.Exclude)...) {
		o.IO.Eprintf("aaep-listen: %s\n", w)
	}
	o.SubscriberID = session.UserSubscriberID(getenv)
	return nil
}
