// demo.go: aaep-replay serve --demo: the built-in demo producer, standalone.

package main

import (
	"context"
	"fmt"
	"strings"

	aaepterm "github.com/aaep-term/aaep-term"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
)

// demoOptions are the flags of serve --demo.
type demoOptions struct {
	addr      string // HTTP and WebSocket; gRPC listens on the same host, its own port
	scenarios string // comma-separated names; "" plays all
}

// serveDemo serves the built-in demo producer, live, on every binding it
// speaks, until ctx ends (SIGINT, SIGTERM). Prompts wait for a reply until
// their own timeout.
func serveDemo(ctx context.Context, o demoOptions, tio *term.IO) (int, error) {
	all, err := producer.LoadScenarios(aaepterm.Scenarios, "testdata/scenarios")
	if err != nil {
		return exitViolations, fmt.Errorf("load the demo scenarios: %w", err)
	}
	scenarios := all
	if o.scenarios != "" {
		if scenarios, err = producer.SelectScenarios(all, strings.Split(o.scenarios, ",")); err != nil {
			return exitUnreadable, usagef("--demo-scenarios: %v", err)
		}
	}
	say := sayer(tio)
	p := producer.New(producer.Options{Scenarios: scenarios, Speed: 1, Logf: say})
	return serveProducer(ctx, p, o.addr, nil, say, func(a, g string) {
		say("Serving the demo producer (%d %s), live: prompts wait for a reply until they time out. Press Control-C to stop.",
			len(scenarios), plural(len(scenarios), "scenario", "scenarios"))
		sayBindings(say, a, g)
	})
}
