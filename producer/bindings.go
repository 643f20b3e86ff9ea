package producer

// This file serves runs on several bindings at once, each on a listener of
// its own: what aaep-replay serve, aaep-conform target and aaep-bridge all do.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/aaep-term/aaep-term/protocol"
)

// Listeners are where ServeBindings serves: one listener a binding. A nil
// listener's binding is not served.
type Listeners struct {
	HTTP net.Listener // HTTP, both layouts, and WebSocket: the same handler
	GRPC net.Listener
	Unix net.Listener // from ListenUnix
}

// ListenBeside listens on a free TCP port of the host ln listens on: for
// gRPC, beside HTTP and WebSocket on ln.
func ListenBeside(ln net.Listener) (net.Listener, error) {
	host, _, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		return nil, fmt.Errorf("producer: listen beside %s: %w", ln.Addr(), err)
	}
	gln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("listen for gRPC on %s: %w", host, err)
	}
	return gln, nil
}

// Servers are runs served on several bindings, a Server each. Their
// methods may be called from any goroutine.
type Servers struct {
	list   []*Server
	urls   []string
	failed chan struct{} // closed when the first server ends
	once   sync.Once
}

// ServeBindings serves r on every listener of ls, each in a goroutine of
// its own, and returns at once. The Servers own the listeners from then
// on; Stop closes them, and r. When a binding cannot be served,
// ServeBindings stops what it started, closes every listener of ls and
// returns why.
func ServeBindings(r *Runs, ls Listeners) (*Servers, error) {
	s := &Servers{failed: make(chan struct{})}
	for _, b := range []struct {
		ln net.Listener
		b  Binding
	}{{ls.HTTP, BindingHTTP}, {ls.GRPC, BindingGRPC}, {ls.Unix, BindingUnix}} {
		if b.ln == nil {
			continue
		}
		srv, err := ServeRuns(b.ln, r, b.b)
		if err != nil {
			s.Stop()
			for _, ln := range []net.Listener{ls.HTTP, ls.GRPC, ls.Unix} {
				if ln != nil {
					ln.Close()
				}
			}
			return nil, err
		}
		s.list = append(s.list, srv)
		s.urls = append(s.urls, srv.URL())
		if b.b == BindingHTTP {
			s.urls = append(s.urls, "ws://"+b.ln.Addr().String()+protocol.PathWebSocket)
		}
		go func() {
			<-srv.Done()
			s.once.Do(func() { close(s.failed) })
		}()
	}
	return s, nil
}

// URLs are the endpoints subscribers dial, one a binding, in the order
// http://…, ws://…, grpc://…, unix:PATH.
func (s *Servers) URLs() []string { return s.urls }

// Wait serves until ctx ends, stop is closed or sent on (a nil stop never
// is) or a server ends by itself; then it stops every server, as Stop
// does, and returns why one failed.
func (s *Servers) Wait(ctx context.Context, stop <-chan struct{}) error {
	select {
	case <-ctx.Done():
	case <-stop:
	case <-s.failed:
	}
	s.Stop()
	return s.Err()
}

// Err is why the servers that have ended by themselves failed; nil when
// none did.
func (s *Servers) Err() error {
	var errs []error
	for _, srv := range s.list {
		errs = append(errs, srv.Err())
	}
	return errors.Join(errs...)
}

// Stop closes the runs, which ends every stream and connection, then stops
// every server, and returns once they have all ended.
func (s *Servers) Stop() {
	for _, srv := range s.list {
		srv.Stop() // the first closes the runs: every stream ends, so stopping does not wait on them
	}
}
