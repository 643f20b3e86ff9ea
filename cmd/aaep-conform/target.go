// target.go: aaep-conform target: this repository's producer playing the
// conformance target scenarios, so that anyone can reproduce our claim.

package main

import (
	"context"
	"flag"

	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/producer"
)

const targetUsage = `Usage: aaep-conform target [--addr HOST:PORT] [--unix PATH]
       aaep-conform target --stdio
       aaep-conform target --print-manifest

Serves this repository's producer playing the conformance target scenarios
(conform.TargetScenarios: confirmations accepted, rejected and left to time
out after one second, a clarification, a session that errs, a confirmation
left waiting when the suite closes), so that a Level 3 run of
aaep-conform producer can pass against it, and anyone can reproduce the
claim the README states. Prompts are played for real: whatever the suite
answers decides what the scenario does next (no real action is taken).

It serves any number of conformance runs, one after another, on each
binding: the subscriptions of one run share its scenarios, and a
subscription that comes once every stream of the run before has left starts
a fresh run of its own.

  --addr        HTTP (spec and deployed layouts) and WebSocket; a free
                loopback port by default. One line says each endpoint.
  --unix PATH   also the Unix socket binding at PATH.
  --stdio       one subscriber in JSON-RPC on standard input and output and
                nothing else, for exec: (what it says goes to standard error).
  --print-manifest  print the manifest the target serves and stop; local
                bindings (unix:, exec:) have no well-known URL, so give it to
                aaep-conform producer --manifest FILE.
  --allow-origin ORIGINS  browser pages of these origins may subscribe and
                answer; by default (*) any page may read the streams, but
                only signed replies are taken from it (docs/transports.md).

Flags:
`

// targetAt is where a target serves, for the lines printed and for tests.
type targetAt = cliflag.Served

func runTarget(ctx context.Context, args []string, d *deps) (int, error) {
	fs := flag.NewFlagSet("target", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "serve HTTP and WebSocket on `HOST:PORT` (port 0 picks a free one)")
	unixPath := fs.String("unix", "", "also serve the Unix socket binding at `PATH`")
	stdio := fs.Bool("stdio", false, "serve one subscriber in JSON-RPC on standard input and output, and nothing else")
	printManifest := fs.Bool("print-manifest", false, "print the manifest the target serves, and stop")
	var origins cliflag.Origins
	origins.Register(fs, "*")
	rest, err := cliflag.ParseHelp(fs, args, targetUsage, d.io.Out)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) != 0 {
		return exitCannot, cliflag.Usagef("the target takes no operand, got %q", rest[0])
	}
	if *stdio && *unixPath != "" {
		return exitCannot, cliflag.Usagef("--stdio serves standard input and output only: it goes without --unix")
	}
	newRun, err := conform.TargetRuns(nil, origins.Or(producer.AnyOrigin))
	if err != nil {
		return exitCannot, err
	}
	switch {
	case *printManifest:
		m, err := conform.TargetManifest(newRun)
		if err != nil {
			return exitCannot, err
		}
		d.io.Printf("%s\n", m)
		return exitConforming, nil
	case *stdio: // one subscriber: one run
		p := newRun()
		defer p.Close()
		d.io.Eprintf("Serving the conformance target on standard input and output.\n")
		if err := p.ServeStdio(ctx, d.io.In, d.io.Out); err != nil {
			return exitCannot, err
		}
		return exitConforming, nil
	}
	runs := producer.NewRuns(newRun, nil)
	defer runs.Close()
	// The same runs on every binding: a run that ends closes its Unix
	// subscriptions with a subscription.close, so they do not dial again.
	err = cliflag.Serve(ctx, runs, cliflag.Where{Addr: *addr, Unix: *unixPath}, nil, func(at cliflag.Served) {
		d.io.Printf("Serving the conformance target, a fresh run for each test run. Press Control-C to stop.\n")
		for _, l := range at.Lines() {
			d.io.Printf("%s\n", l)
		}
		d.io.Printf("Test it with: aaep-conform producer --level 3 --answer-prompts http://%s\n", at.HTTP)
		if d.targetReady != nil {
			d.targetReady(at)
		}
	})
	if err != nil {
		return exitCannot, err
	}
	d.io.Printf("Stopped serving.\n")
	return exitConforming, nil
}
