// demo.go: aaep-replay serve --demo: the built-in demo producer, standalone.

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
)

// demoOptions are the flags of serve --demo.
type demoOptions struct {
	where     where
	scenarios string   // comma-separated names; "" plays all
	loop      bool     // play the scenarios again and again
	origins   []string // producer.Options.AllowOrigins
}

// serveDemo serves the built-in demo producer, live, on every binding it
// speaks, until ctx ends (SIGINT, SIGTERM). Prompts wait for a reply until
// their own timeout. Once the scenarios have played, the streams end; a
// subscriber that comes later (or when everyone has left) hears a fresh run
// from the start. With loop the scenarios play again and again instead.
func serveDemo(ctx context.Context, o demoOptions, tio *term.IO) (int, error) {
	var names []string
	if o.scenarios != "" {
		names = strings.Split(o.scenarios, ",")
	}
	scenarios, err := demo.Pick(names)
	if err != nil {
		return exitUnreadable, cliflag.Usagef("--demo-scenarios: %v", err)
	}
	say := sayer(tio, o.where.Stdio)
	count := fmt.Sprintf("%d %s", len(scenarios), prose.Plural(len(scenarios), "scenario", "scenarios"))
	opts := producer.Options{Scenarios: scenarios, Speed: 1, Logf: say, Loop: o.loop, EndWhenDone: !o.loop,
		JoinLive: true, AllowOrigins: o.origins}
	opts.OnEnd = func() {
		say("The demo has played its %s: its streams are ended. A subscriber that connects now hears it again from the start.", count)
	}
	runs := producer.NewRuns(func() *producer.Producer { return producer.New(opts) }, say)
	err = serveRuns(ctx, tio, runs, o.where, nil, say, func(at cliflag.Served) {
		live := fmt.Sprintf("Serving the demo producer (%s), live: prompts wait for a reply until they time out.", count)
		switch {
		case o.loop:
			live += " The scenarios play again and again (--loop)."
		case !o.where.Stdio:
			live += " Streams end when the scenarios have played."
		}
		if o.where.Stdio {
			say("%s On standard input and output.", live)
			return
		}
		say("%s Press Control-C to stop.", live)
		for _, l := range at.Lines() {
			say("%s", l)
		}
	})
	return cliflag.ExitCode(err), err
}
