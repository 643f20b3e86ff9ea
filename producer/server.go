package producer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aaep-term/aaep-term/transport"
)

// Binding names a binding a Server serves a producer over: the names
// transport dials by, one name for each binding on both sides.
type Binding = transport.Binding

// The bindings Serve serves. HTTP and WebSocket are one handler (the
// producer's ServeHTTP), which offers both HTTP layouts with Server-Sent
// Events and WebSocket at protocol.PathWebSocket; they differ only in the
// URL a Server gives.
const (
	BindingHTTP      = transport.BindingSSE       // HTTP with Server-Sent Events: http://HOST:PORT
	BindingWebSocket = transport.BindingWebSocket // WebSocket: ws://HOST:PORT
	BindingGRPC      = transport.BindingGRPC      // gRPC: grpc://HOST:PORT
	BindingUnix      = transport.BindingUnix      // the Unix socket binding: unix:PATH
)

// httpScheme is the start of the URL of a Server of the HTTP handler over
// b: "ws://" for BindingWebSocket, "http://" for BindingHTTP.
func httpScheme(b Binding) string {
	if b == BindingWebSocket {
		return "ws://"
	}
	return "http://"
}

// noBinding is Serve's error for a binding it does not serve.
func noBinding(b Binding) error {
	return fmt.Errorf("producer: no binding %q; the bindings served are %s, %s, %s and %s", b, BindingHTTP, BindingWebSocket, BindingGRPC, BindingUnix)
}

// shutdownGrace is how long Stop lets HTTP requests still running end by
// themselves before it cuts them. The producer is closed first, which ends
// its streams, so this bounds only a handler that will not end.
const shutdownGrace = time.Second

// Server is a producer served on one listener, in a goroutine of its own,
// until it is stopped or fails. Its methods may be called from any
// goroutine.
type Server struct {
	url      string
	before   func() // run first by Stop: closes the producer
	shutdown func() // ends serving; the serving function then returns
	stopped  atomic.Bool
	once     sync.Once
	done     chan struct{}
	err      error // set before done is closed
}

// Serve serves p on ln over b, in a goroutine of its own, and returns at
// once. The Server owns ln from then on; Stop closes it. ln is a TCP
// listener for HTTP, WebSocket and gRPC, and a Unix socket listener (see
// ListenUnix) for BindingUnix. Serve refuses a binding it does not know.
func Serve(ln net.Listener, p *Producer, b Binding) (*Server, error) {
	addr := ln.Addr().String()
	var s *Server
	switch b {
	case BindingHTTP, BindingWebSocket:
		s = serveHTTP(ln, p, httpScheme(b)+addr)
	case BindingGRPC:
		gs := p.GRPCServer()
		s = start("grpc://"+addr, func() error { return gs.Serve(ln) }, gs.Stop)
	case BindingUnix:
		ctx, cancel := context.WithCancel(context.Background())
		s = start("unix:"+addr, func() error { return p.ServeUnix(ctx, ln) }, cancel)
	default:
		return nil, noBinding(b)
	}
	s.before = func() { p.Close() }
	return s, nil
}

func ServeHandler(ln net.Listener, h http.Handler) *Server {
	return serveHTTP(ln, h, "http://"+ln.Addr().String())
}

// serveHTTP serves h on ln with an http.Server.
func serveHTTP(ln net.Listener, h http.Handler, url string) *Server {
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	return start(url, func() error {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			hs.Close() // a request that would not end is cut
		}
	})
}

// start runs serve in a goroutine of its own; shutdown makes it return.
func start(url string, serve func() error, shutdown func()) *Server {
	s := &Server{url: url, shutdown: shutdown, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		err := serve()
		if err != nil && !s.stopped.Load() {
			s.err = fmt.Errorf("producer: serving %s: %w", url, err)
		}
	}()
	return s
}

// URL is the endpoint a subscriber dials: "http://127.0.0.1:8080",
// "ws://…", "grpc://…" or "unix:PATH".
func (s *Server) URL() string { return s.url }

// Done is closed once the server has ended: stopped, or failed (see Err).
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is why the server ended by itself, once Done is closed: nil when it
// was stopped (or is still serving).
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Stop closes the producer, which ends its streams and connections, then
// stops the server, and returns once the server's goroutine has ended.
// Calling it again, from any goroutine, waits for the same end.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.stopped.Store(true)
		if s.before != nil {
			s.before()
		}
		s.shutdown()
	})
	<-s.done
}

// ServeLoopback serves p over b (HTTP, WebSocket or gRPC) on a free port of
// the loopback interface, as Serve does.
func ServeLoopback(p *Producer, b Binding) (*Server, error) {
	if b == BindingUnix {
		return nil, fmt.Errorf("producer: the Unix socket binding has no loopback port; give Serve a listener from ListenUnix")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("producer: listen on loopback: %w", err)
	}
	s, err := Serve(ln, p, b)
	if err != nil {
		ln.Close()
		return nil, err
	}
	return s, nil
}
