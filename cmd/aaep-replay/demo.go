// demo.go: aaep-replay serve --demo: the built-in demo producer, standalone.

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	aaepterm "github.com/aaep-term/aaep-term"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
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
	var mu sync.Mutex // serializes what handlers print
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		tio.Printf(format+"\n", args...)
	}
	p := producer.New(producer.Options{Scenarios: scenarios, Speed: 1, Logf: say})
	defer p.Close()

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return exitViolations, fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	host, _, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		ln.Close()
		return exitViolations, fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	gln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		ln.Close()
		return exitViolations, fmt.Errorf("listen for gRPC on %s: %w", host, err)
	}
	hs := &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second}
	gs := p.GRPCServer()
	errc := make(chan error, 2)
	go func() { errc <- hs.Serve(ln) }()
	go func() { errc <- gs.Serve(gln) }()

	a, g := ln.Addr().String(), gln.Addr().String()
	say("Serving the demo producer (%d %s), live: prompts wait for a reply until they time out. Press Control-C to stop.",
		len(scenarios), prose.Plural(len(scenarios), "scenario", "scenarios"))
	say("HTTP, spec layout: http://%s (POST %s, then the stream it names; replies to POST %s).", a, protocol.PathSubscriptions, protocol.PathReplies)
	say("HTTP, deployed layout: http://%s%s (unnamed events; ?named=1 names them), replies to POST http://%s%s.", a, protocol.PathLegacyEvents, a, protocol.PathLegacyReplies)
	say("WebSocket: ws://%s%s (subprotocol aaep.v1).", a, protocol.PathWebSocket)
	say("gRPC: grpc://%s.", g)

	var serveErr error
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			serveErr = fmt.Errorf("serve: %w", err)
		}
	}
	p.Close() // ends every stream, so shutting down does not wait on them
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	gs.Stop()
	if serveErr != nil {
		return exitViolations, serveErr
	}
	say("Stopped serving.")
	return exitOK, nil
}
