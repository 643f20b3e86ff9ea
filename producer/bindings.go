// Package serve serves a producer for a command: on HTTP (both layouts),
// WebSocket and gRPC at one address, or to one subscriber on standard
// input and output, saying where in lines for a person.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// Sayer returns a function that prints one line at a time, from any
// goroutine: on standard output, or on standard error when standard output
// carries the protocol (--stdio).
func Sayer(tio *term.IO, stdio bool) func(format string, args ...any) {
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

// Where says where to serve a producer: HTTP (both layouts) and
// WebSocket at addr, gRPC on a free port of the same host; or, with stdio,
// one subscriber on standard input and output and nothing else. No Unix
// socket: that binding cannot tell a subscriber the stream is over (spec
// appendix B.4), so one that reconnects would hear a capture again and
// again.
type Where struct {
	Addr  string
	Stdio bool
}

// At is where a producer is served: the HTTP and WebSocket address and
// the gRPC one, or standard input and output.
type At struct {
	HTTP, GRPC string
	Stdio      bool
}

// Say says where each binding listens, one line each. An address is
// never followed by punctuation, so it can be copied as printed.
func (at At) Say(say func(string, ...any)) {
	a := at.HTTP
	say("HTTP, spec layout: http://%s (POST %s, then the stream it names; replies to POST %s)", a, protocol.PathSubscriptions, protocol.PathReplies)
	say("HTTP, deployed layout: http://%s%s (unnamed events; ?named=1 names them); replies to POST http://%s%s", a, protocol.PathLegacyEvents, a, protocol.PathLegacyReplies)
	say("WebSocket: ws://%s%s (subprotocol aaep.v1)", a, protocol.PathWebSocket)
	say("gRPC: grpc://%s", at.GRPC)
}

// Producer serves runs where b says. It calls started once every binding
// listens, and serves until ctx ends (SIGINT, SIGTERM) or stop is closed
// or sent on (with Stdio: until the subscriber, who gets the current run,
// is done), then says it stopped. A wrong address is a cliflag usage error.
func Producer(ctx context.Context, tio *term.IO, runs *producer.Runs, b Where, stop <-chan struct{}, say func(string, ...any), started func(At)) error {
	defer runs.Close()
	if b.Stdio {
		p := runs.Current()
		started(At{Stdio: true})
		err := p.ServeStdio(ctx, tio.In, tio.Out) // the protocol's channel, not lines for a person
		p.Close()
		if err != nil {
			return fmt.Errorf("serve on standard input and output: %w", err)
		}
		say("Stopped serving.")
		return nil
	}
	ln, err := cliflag.Listen(b.Addr)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		ln.Close()
		return fmt.Errorf("listen on %s: %w", b.Addr, err)
	}
	gln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		ln.Close()
		return fmt.Errorf("listen for gRPC on %s: %w", host, err)
	}
	hs, err := producer.ServeRuns(ln, runs, producer.BindingHTTP) // WebSocket too: the same handler
	if err != nil {
		ln.Close()
		gln.Close()
		return err
	}
	gs, err := producer.ServeRuns(gln, runs, producer.BindingGRPC)
	if err != nil {
		hs.Stop()
		gln.Close()
		return err
	}
	started(At{HTTP: ln.Addr().String(), GRPC: gln.Addr().String()})

	select {
	case <-ctx.Done():
	case <-stop:
	case <-hs.Done():
	case <-gs.Done():
	}
	hs.Stop() // closes the runs first: every stream and connection ends, so stopping does not wait on them
	gs.Stop()
	if err := errors.Join(hs.Err(), gs.Err()); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	say("Stopped serving.")
	return nil
}
