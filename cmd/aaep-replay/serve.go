// serve.go: aaep-replay serve: a capture, or the demo, served by the
// project's producer on loopback, on every binding it speaks.

package main

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

const serveUsage = `Usage: aaep-replay serve [--addr HOST:PORT] [--speed X] [--idle-limit D] [--loop] [--no-wait] [--once] FILE
       aaep-replay serve --stdio [--speed X] [--idle-limit D] [--loop] FILE
       aaep-replay serve --demo [--addr HOST:PORT] [--stdio] [--demo-scenarios NAMES] [--loop]

Serves the received messages of a capture as a producer, so that other
subscribers can be tested against a recorded session. Offered at once:
  - the spec's HTTP layout: POST /aaep/v1/subscriptions, GET /aaep/v1/events,
    replies to POST /aaep/v1/replies
  - the deployed HTTP layout: GET /events, replies to POST /messages
  - WebSocket at /aaep/v1/ws (subprotocol aaep.v1), with the handshake as
    the first message and replies on the same connection
  - gRPC, on a port of its own
One line says where each binding listens. --stdio instead serves one
subscriber in JSON-RPC 2.0 on standard input and output (for
aaep-listen 'exec:aaep-replay serve --stdio FILE'); what it says then goes
to standard error. Each subscription gets what its
terms allow: no confirmation when it said it cannot answer one, only the
event types its filters ask for, at most the rate it asked for.
Messages are paced by the recorded times. Each event's timestamp is the
time it is sent (--keep-timestamps sends the recorded ones), so prompts are
live. Replies are received, printed here, and change nothing.

By default each subscriber gets the capture from its start, for itself.
--no-wait starts playing at once, as a live producer does: a subscriber gets
what is sent from the moment it joins. --loop plays the capture again and
again, with new event IDs, session IDs and reply tokens every round.

Pages in a browser on another origin are let in by --allow-origin: pages
of the origins it names may subscribe and answer; with * any page may read
the streams and subscribe, but its unsigned replies are refused (any page
could forge them). Streams carry a keep-alive comment every 15 seconds.

A capture of several agents (aaep-capture with several endpoints) is served
one agent at a time, as the one producer it was: the first agent, or the
one --agent LABEL names; a line says which.

--demo serves the built-in demo producer instead, live, for testing your own
subscriber: prompts wait for a reply until they time out. Once its scenarios
have played, its streams end (a line says so), so a listener or a capture
ends too; a subscriber that connects later, or once everyone has left, hears
a fresh run from the start. With --loop the scenarios play again and again,
as new sessions, and streams never end. It runs until Control-C (or SIGTERM).

Flags:
`

func runServe(ctx context.Context, args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one; gRPC takes another free port)")
	speed := fs.Float64("speed", 1, "pace: 1 is as recorded, 2 twice as fast, 0 as fast as possible")
	idle := fs.Duration("idle-limit", 3*time.Second, "longest pause between two messages")
	once := fs.Bool("once", false, "stop once one stream (with --no-wait: the playing) has sent the whole capture")
	loop := fs.Bool("loop", false, "play the capture (with --demo: the scenarios) again and again, with fresh IDs every round")
	noWait := fs.Bool("no-wait", false, "start playing at once, whether a subscriber is there or not")
	linger := fs.Duration("linger", 2*time.Second, "keep a stream open this long after its last message, for late replies")
	keepTS := fs.Bool("keep-timestamps", false, "send the recorded timestamps instead of the time of sending")
	demo := fs.Bool("demo", false, "serve the built-in demo producer, live, instead of a capture")
	scenarios := fs.String("demo-scenarios", "", "with --demo: comma-separated demo `NAMES` to play (default: all, in order)")
	agentName := fs.String("agent", "", "in a capture of several agents, serve the one of this `LABEL` (or connection ID); default the first")
	stdio := fs.Bool("stdio", false, "serve one subscriber in JSON-RPC on standard input and output, and nothing else")
	var origins cliflag.Origins
	origins.Register(fs, "none; with --demo, *")
	files, err := cliflag.ParseHelp(fs, args, serveUsage, tio.Out)
	if err != nil {
		return exitUnreadable, err
	}
	where := where{Addr: *addr, Stdio: *stdio}
	switch {
	case *stdio && (*noWait || *once):
		return exitUnreadable, cliflag.Usagef("--stdio serves one subscriber on standard input and output: it goes with neither --no-wait nor --once")
	case *demo && len(files) != 0:
		return exitUnreadable, cliflag.Usagef("--demo serves the built-in producer: give no FILE")
	case *demo:
		return serveDemo(ctx, demoOptions{where: where, scenarios: *scenarios, loop: *loop, origins: origins.Or(producer.AnyOrigin)}, tio)
	case *scenarios != "":
		return exitUnreadable, cliflag.Usagef("--demo-scenarios goes with --demo")
	case len(files) != 1:
		return exitUnreadable, cliflag.Usagef("give exactly one FILE to serve, got %d", len(files))
	case *stdio && files[0] == "-":
		return exitUnreadable, cliflag.Usagef("--stdio takes standard input for the subscriber: give the capture as a FILE, not -")
	case *speed < 0:
		return exitUnreadable, cliflag.Usagef("--speed must not be negative")
	case *loop && *once:
		return exitUnreadable, cliflag.Usagef("--loop and --once contradict each other")
	}
	rd, err := capture.Open(files[0])
	if err != nil {
		return exitUnreadable, err
	}
	recs, err := rd.Records()
	h := rd.Header()
	rd.Close()
	if err != nil {
		return exitUnreadable, fmt.Errorf("%s: %w", files[0], err)
	}
	say := sayer(tio, *stdio)
	if h != nil && len(h.Connections) > 0 {
		// One producer serves one agent: the capture's first, or --agent.
		c, ok := capture.FindConnection(h.Connections, *agentName)
		if !ok {
			return exitUnreadable, cliflag.Usagef("--agent %s: the capture holds no such agent; it holds %s", protocol.Name(*agentName), capture.ConnectionNames(h.Connections))
		}
		recs = capture.RecordsOf(recs, c.ID)
		say("The capture holds %d agents (%s); serving %s only (--agent NAME serves another).", len(h.Connections), capture.ConnectionNames(h.Connections), c.Name())
	} else if *agentName != "" {
		return exitUnreadable, cliflag.Usagef("--agent %s: %s holds the messages of one agent only", protocol.Name(*agentName), files[0])
	}
	finished := make(chan struct{}, 1)
	replay := &producer.Replay{
		Records: recs, Speed: *speed, IdleLimit: *idle, Loop: *loop, Shared: *noWait,
		KeepTimestamps: *keepTS, Linger: *linger,
		OnDone: func() {
			say("A stream has sent the whole capture.")
			select {
			case finished <- struct{}{}:
			default:
			}
		},
	}
	p := producer.New(producer.Options{Replay: replay, AllowOrigins: origins.Or(), OnMessage: func(via string, body []byte) {
		say("Received on %s: %s", via, protocol.Sanitize(string(body)))
	}})
	var stop <-chan struct{}
	if *once {
		stop = finished
	}
	err = serveRuns(ctx, tio, producer.OneRun(p), where, stop, say, func(at cliflag.Served) {
		if *stdio {
			say("Serving %d messages of %s on standard input and output.", replay.Len(), files[0])
			return
		}
		say("Serving %d messages of %s. Press Control-C to stop.", replay.Len(), files[0])
		for _, l := range at.Lines() {
			say("%s", l)
		}
		if *noWait {
			say("Playing now, whether a subscriber is there or not.")
			go func() { _ = p.Run(ctx) }()
		} else {
			say("Waiting for a subscriber; each one gets the capture from its start.")
		}
	})
	return cliflag.ExitCode(err), err
}

// sayer returns a function that prints one line at a time, from any
// goroutine: on standard output, or on standard error when standard output
// carries the protocol (--stdio).
func sayer(tio *term.IO, stdio bool) func(format string, args ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if stdio {
			tio.Eprintf(format+"\n", args...)
			return
		}
		tio.Printf(format+"\n", args...)
	}
}

// where says where to serve: HTTP (both layouts) and WebSocket at Addr,
// gRPC on a free port of the same host; or, with Stdio, one subscriber on
// standard input and output and nothing else. No Unix socket: that binding
// cannot tell a subscriber the stream is over (spec appendix B.4), so one
// that reconnects would hear a capture again and again.
type where struct {
	Addr  string
	Stdio bool
}

// serveRuns serves runs where w says. It calls started once every binding
// listens (with Stdio, a zero Served), and serves until ctx ends (SIGINT,
// SIGTERM) or stop is closed or sent on (with Stdio: until the subscriber,
// who gets the current run, is done), then says it stopped. A wrong
// address is a cliflag usage error.
func serveRuns(ctx context.Context, tio *term.IO, runs *producer.Runs, w where, stop <-chan struct{}, say func(string, ...any), started func(cliflag.Served)) error {
	defer runs.Close()
	if w.Stdio {
		p := runs.Current()
		started(cliflag.Served{})
		err := p.ServeStdio(ctx, tio.In, tio.Out) // the protocol's channel, not lines for a person
		p.Close()
		if err != nil {
			return fmt.Errorf("serve on standard input and output: %w", err)
		}
	} else if err := cliflag.Serve(ctx, runs, cliflag.Where{Addr: w.Addr, GRPC: true}, stop, started); err != nil {
		return err
	}
	say("Stopped serving.")
	return nil
}
