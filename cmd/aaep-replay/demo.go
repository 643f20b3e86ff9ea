// demo.go: aaep-replay serve --demo: the built-in demo producer, standalone.

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/internal/cliflag"

	aaepterm "github.com/aaep-term/aaep-term"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
)

// demoOptions are the flags of serve --demo.
type demoOptions struct {
	where     bindings
	scenarios string // comma-separated names; "" plays all
}

// serveDemo serves the built-in demo producer, live, on every binding it
// speaks, until ctx ends (SIGINT, SIGTERM). Prompts wait for a reply until
// their own timeout.
func serveDemo(ctx context.Context, o demoOptions, tio *term.IO) (int, error) {
	var names []string
	if o.scenarios != "" {
		names = strings.Split(o.scenarios, ",")
	}
	scenarios, err := aaepterm.DemoScenarios(names)
	if err != nil {
		return exitUnreadable, cliflag.Usagef("--demo-scenarios: %v", err)
	}
	say := sayer(tio, o.where.stdio)
	p := producer.New(producer.Options{Scenarios: scenarios, Speed: 1, Logf: say})
	return serveProducer(ctx, tio, p, o.where, nil, say, func(at listening) {
		live := fmt.Sprintf("Serving the demo producer (%d %s), live: prompts wait for a reply until they time out.",
			len(scenarios), prose.Plural(len(scenarios), "scenario", "scenarios"))
		if at.stdio {
			say("%s On standard input and output.", live)
			return
		}
		say("%s Press Control-C to stop.", live)
		at.say(say)
	})
}
