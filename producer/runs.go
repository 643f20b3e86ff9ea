package producer

// This file holds Runs: one run of a producer after another, a fresh one
// for each group of subscribers, so that one server serves any number of
// conformance runs or demonstrations.

import (
	"context"
	"net"
	"net/http"
	"sync"

	"google.golang.org/grpc"

	"github.com/aaep-term/aaep-term/protocol"
)

// Runs serves a new run of a producer to each group of subscribers: a
// subscriber that comes when every stream that opened on the current run
// has left (as they do when a run that ends its streams has ended) starts
// a fresh Producer. A group is whoever joins while someone of it is still
// connected; each group hears its scenarios from the start. It is an
// http.Handler; its methods are safe for concurrent use.
type Runs struct {
	newRun func() *Producer
	logf   func(string, ...any)

	mu     sync.Mutex
	cur    *Producer
	n      int            // runs started
	old    sync.WaitGroup // runs left behind, being closed
	closed bool
}

// NewRuns returns Runs that make each run with newRun; the first is made
// at once. logf, if not nil,
// is told when a run starts.
func NewRuns(newRun func() *Producer, logf func(string, ...any)) *Runs {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	r := &Runs{newRun: newRun, logf: logf}
	r.startLocked()
	return r
}

// Current returns the run subscribers join now.
func (r *Runs) Current() *Producer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// OneRun returns Runs of p alone: every subscriber joins p, as if p were
// served by itself.
func OneRun(p *Producer) *Runs {
	return &Runs{cur: p, n: 1, logf: p.opts.Logf}
}

// forNewcomer returns the run a new subscriber joins: the current one,
// unless it is spent, when a fresh run replaces it.
func (r *Runs) forNewcomer() *Producer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.newRun != nil && !r.closed && r.cur.spent() {
		r.startLocked()
	}
	return r.cur
}

// startLocked makes a fresh run current and closes the one it replaces.
// r.mu is held.
func (r *Runs) startLocked() {
	if old := r.cur; old != nil {
		r.old.Go(func() { old.Close() })
	}
	r.cur = r.newRun()
	r.n++
	if r.n > 1 {
		r.logf("producer: run %d starts for a new subscriber", r.n)
	}
}

// Close closes the current run and every run left behind, and returns
// once they have all ended.
func (r *Runs) Close() error {
	r.mu.Lock()
	r.closed = true
	cur := r.cur
	r.mu.Unlock()
	cur.Close()
	r.old.Wait()
	return nil
}

// ServeHTTP serves r's current run; a request that starts a subscription
// (a subscription request, a deployed-layout stream, a WebSocket) may start
// a fresh one.
func (r *Runs) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p := r.Current()
	switch {
	case req.Method == http.MethodPost && req.URL.Path == protocol.PathSubscriptions,
		req.Method == http.MethodGet && req.URL.Path == protocol.PathLegacyEvents,
		req.Method == http.MethodGet && req.URL.Path == protocol.PathWebSocket:
		p = r.forNewcomer()
	}
	p.ServeHTTP(w, req)
}

// ServeUnix serves every subscriber that connects to ln, each on the run
// it joins, until ctx ends or r closes.
func (r *Runs) ServeUnix(ctx context.Context, ln net.Listener) error {
	return acceptUnix(ctx, ln, r.logf, func(ctx context.Context, c net.Conn) {
		r.forNewcomer().serveUnixConn(ctx, c)
	})
}

// GRPCServer returns a gRPC server offering the AaepService of r's runs, as
// Producer.GRPCServer does for one producer.
func (r *Runs) GRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	return newGRPCServer(func(newcomer bool) *Producer {
		if newcomer {
			return r.forNewcomer()
		}
		return r.Current()
	}, opts)
}

// ServeRuns serves r on ln over b, as Serve serves one producer.
func ServeRuns(ln net.Listener, r *Runs, b Binding) (*Server, error) {
	addr := ln.Addr().String()
	var s *Server
	switch b {
	case BindingHTTP, BindingWebSocket:
		s = serveHTTP(ln, r, httpScheme(b)+addr)
	case BindingGRPC:
		gs := r.GRPCServer()
		s = start("grpc://"+addr, func() error { return gs.Serve(ln) }, gs.Stop)
	case BindingUnix:
		ctx, cancel := context.WithCancel(context.Background())
		s = start("unix:"+addr, func() error { return r.ServeUnix(ctx, ln) }, cancel)
	default:
		return nil, noBinding(b)
	}
	s.before = func() { r.Close() }
	return s, nil
}

// spent reports whether a new subscriber should get a run of its own:
// streams have opened on this run and none of a live subscription (nor of
// the deployed layout) is open now. A run that has ended keeps its group
// while one of it is connected: a subscriber joining it is told it has
// finished, as by a lone producer, and the group is not cut short.
func (p *Producer) spent() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.streams == 0 || p.anonymous > 0 {
		return false
	}
	for _, s := range p.subs {
		if s.streams > 0 {
			return false
		}
	}
	return true
}
