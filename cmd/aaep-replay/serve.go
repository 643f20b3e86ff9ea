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

const serveUsage = `Usage: aaep-replay serve [--addr HOST:PORT] [--speed X] [--idle-limit D] [--once] FILE

Serves the received messages of a capture as a producer over HTTP, so that
other subscribers can be tested against a recorded session. Both layouts are
offered: the spec's (POST /aaep/v1/subscriptions, GET /aaep/v1/events,
replies to POST /aaep/v1/replies) and the deployed one (GET /events, replies
to POST /messages). Each stream plays the capture from its start, paced by
the recorded times, then ends. Replies are received, printed here, and change
nothing.

Flags:
`

func runServe(ctx context.Context, args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	speed := fs.Float64("speed", 1, "pace: 1 is as recorded, 2 twice as fast, 0 as fast as possible")
	idle := fs.Duration("idle-limit", 3*time.Second, "longest pause between two messages")
	once := fs.Bool("once", false, "stop once one stream has sent the whole capture")
	files, err := parse(fs, args, serveUsage, tio.Out)
	if err != nil {
		return codeOf(err), err
	}
	switch {
	case len(files) != 1:
		return exitUnreadable, usagef("give exactly one FILE to serve, got %d", len(files))
	case *speed < 0:
		return exitUnreadable, usagef("--speed must not be negative")
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
		fmt.Fprintf(tio.Out, format+"\n", args...)
	}
	finished := make(chan struct{}, 1)
	srv := capture.NewServer(recs, capture.ServeOptions{
		Speed: *speed, IdleLimit: *idle,
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
	say("Serving %d messages of %s at http://%s. Press Control-C to stop.", srv.Len(), files[0], ln.Addr())
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
