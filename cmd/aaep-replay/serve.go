// serve.go: aaep-replay serve: a capture served as a producer on loopback.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

const serveUsage = `Usage: aaep-replay serve [--addr HOST:PORT] [--speed X] [--idle-limit D] [--loop] [--no-wait] [--once] FILE
       aaep-replay serve --demo [--addr HOST:PORT] [--demo-scenarios NAMES]

Serves the received messages of a capture as a producer, so that other
subscribers can be tested against a recorded session. Offered at once:
  - the spec's HTTP layout: POST /aaep/v1/subscriptions, GET /aaep/v1/events,
    replies to POST /aaep/v1/replies
  - the deployed HTTP layout: GET /events, replies to POST /messages
  - WebSocket at /aaep/v1/ws (subprotocol aaep.v1), with the handshake as
    the first message and replies on the same connection
Messages are paced by the recorded times. Each event's timestamp is the
time it is sent (--keep-timestamps sends the recorded ones), so prompts are
live. Replies are received, printed here, and change nothing.

By default each subscriber gets the capture from its start, for itself.
--no-wait starts playing at once, as a live producer does: a subscriber gets
what is sent from the moment it joins. --loop plays the capture again and
again, with new event IDs, session IDs and reply tokens every round.

--demo serves the built-in demo producer instead, live, for testing your own
subscriber: prompts wait for a reply until they time out. It speaks the same
HTTP layouts and WebSocket, and gRPC on a port of its own; one line says
where each binding listens. It runs until Control-C (or SIGTERM).

Flags:
`

func runServe(ctx context.Context, args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	speed := fs.Float64("speed", 1, "pace: 1 is as recorded, 2 twice as fast, 0 as fast as possible")
	idle := fs.Duration("idle-limit", 3*time.Second, "longest pause between two messages")
	once := fs.Bool("once", false, "stop once one stream (with --no-wait: the playing) has sent the whole capture")
	loop := fs.Bool("loop", false, "play the capture again and again, with fresh event IDs every round")
	noWait := fs.Bool("no-wait", false, "start playing at once, whether a subscriber is there or not")
	linger := fs.Duration("linger", 2*time.Second, "keep a stream open this long after its last message, for late replies")
	keepTS := fs.Bool("keep-timestamps", false, "send the recorded timestamps instead of the time of sending")
	demo := fs.Bool("demo", false, "serve the built-in demo producer, live, instead of a capture")
	scenarios := fs.String("demo-scenarios", "", "with --demo: comma-separated demo `NAMES` to play (default: all, in order)")
	files, err := parse(fs, args, serveUsage, tio.Out)
	if err != nil {
		return codeOf(err), err
	}
	switch {
	case *demo && len(files) != 0:
		return exitUnreadable, usagef("--demo serves the built-in producer: give no FILE")
	case *demo:
		return serveDemo(ctx, demoOptions{addr: *addr, scenarios: *scenarios}, tio)
	case *scenarios != "":
		return exitUnreadable, usagef("--demo-scenarios goes with --demo")
	case len(files) != 1:
		return exitUnreadable, usagef("give exactly one FILE to serve, got %d", len(files))
	case *speed < 0:
		return exitUnreadable, usagef("--speed must not be negative")
	case *loop && *once:
		return exitUnreadable, usagef("--loop and --once contradict each other")
	}
	src, closeSrc, err := openInput(files[0])
	if err != nil {
		return exitUnreadable, err
	}
	recs, _, err := capture.ReadDocuments(src)
	closeSrc()
	if err != nil {
		return exitUnreadable, fmt.Errorf("%s: %w", files[0], err)
	}
	var mu sync.Mutex // serializes what handlers print
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		tio.Printf(format+"\n", args...)
	}
	finished := make(chan struct{}, 1)
	srv := capture.NewServer(recs, capture.ServeOptions{
		Speed: *speed, IdleLimit: *idle, Loop: *loop, NoWait: *noWait, KeepTimestamps: *keepTS, Linger: *linger,
		OnReply: func(path string, body []byte) {
			say("Received on %s: %s", path, protocol.Sanitize(string(body)))
		},
		OnDone: func() {
			say("A stream has sent the whole capture.")
			select {
			case finished <- struct{}{}:
			default:
			}
		},
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return exitViolations, fmt.Errorf("listen on %s: %w", *addr, err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second}
	say("Serving %d messages of %s at http://%s (WebSocket: ws://%s%s). Press Control-C to stop.",
		srv.Len(), files[0], ln.Addr(), ln.Addr(), capture.PathWebSocket)
	switch {
	case *noWait:
		say("Playing now, whether a subscriber is there or not.")
	default:
		say("Waiting for a subscriber; each one gets the capture from its start.")
	}
	srv.Start(ctx)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var wait <-chan struct{}
	if *once {
		wait = finished
	}
	select {
	case <-ctx.Done():
	case <-wait:
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return exitViolations, fmt.Errorf("serve: %w", err)
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx) // streams still open are cut; nothing is left to save
	say("Stopped serving.")
	return exitOK, nil
}
