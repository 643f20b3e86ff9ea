package producer

// This file serves the producer over gRPC (appendix B.5): the AaepService's
// Subscribe stream carries the exchange of the other message bindings, one
// AAEP message per AaepMessage, and GetManifest the manifest.

import (
	"context"
	"errors"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/aaep-term/aaep-term/internal/aaeppb"
	"github.com/aaep-term/aaep-term/protocol"
)

// GRPCServer returns a gRPC server offering the AaepService of this
// producer; serve it on a listener with its Serve method. opts add to the
// defaults (TLS credentials, for one). Call p.Close before stopping the
// server: it ends every stream, as it ends the other bindings'
// connections.
func (p *Producer) GRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	return newGRPCServer(func(bool) *Producer { return p }, opts)
}

// newGRPCServer returns a gRPC server offering the AaepService of the
// producer run returns: asked for a new subscriber (newcomer) or not.
func newGRPCServer(run func(newcomer bool) *Producer, opts []grpc.ServerOption) *grpc.Server {
	auth := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return run(false).grpcAuth(srv, ss, info, handler)
	}
	all := append([]grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxBody + 1<<10),
		// Subscribers ping idle streams every few minutes or more often.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.ChainStreamInterceptor(auth), // Options.Token (auth.go)
	}, opts...)
	s := grpc.NewServer(all...)
	aaeppb.RegisterAaepServiceServer(s, grpcService{run: run})
	return s
}

// grpcService implements aaeppb.AaepServiceServer.
type grpcService struct {
	aaeppb.UnimplementedAaepServiceServer
	run func(newcomer bool) *Producer
}

// Subscribe serves one subscriber, as serveFramed serves the other
// bindings'; the stream ends with OK when the subscription ends, or
// UNAVAILABLE when the producer shuts down.
func (g grpcService) Subscribe(s grpc.BidiStreamingServer[aaeppb.AaepMessage, aaeppb.AaepMessage]) error {
	p := g.run(true)
	pe := &grpcPeer{s: s, in: make(chan inbound), done: make(chan struct{})}
	go pe.pump()
	stop := context.AfterFunc(p.ctx, func() { pe.end(protocol.CloseGoingAway, "the producer is shutting down") })
	defer stop()
	served := make(chan struct{})
	go func() {
		defer close(served)
		p.serveFramed(s.Context(), pe, "gRPC", "")
	}()
	select {
	case <-served:
	case <-pe.done:
		// A subscriber that reads nothing keeps a send blocked; returning
		// ends the stream, which unblocks it.
		t := time.NewTimer(closeWait)
		defer t.Stop()
		select {
		case <-served:
		case <-t.C:
		}
	}
	return pe.status()
}

// GetManifest returns the signed manifest (a JWS) when the producer signs
// it, else its JSON.
func (g grpcService) GetManifest(context.Context, *aaeppb.GetManifestRequest) (*aaeppb.Manifest, error) {
	p := g.run(false)
	if jws := p.signedManifest(); jws != "" {
		return &aaeppb.Manifest{Json: []byte(jws)}, nil
	}
	return &aaeppb.Manifest{Json: marshal(p.manifest())}, nil
}

// grpcPeer is a subscriber on a Subscribe stream. A goroutine reads the
// stream, so that end can make next return at once: the stream ends only
// when the handler returns.
type grpcPeer struct {
	s    grpc.BidiStreamingServer[aaeppb.AaepMessage, aaeppb.AaepMessage]
	in   chan inbound
	err  error         // why pump stopped; written before in is closed
	done chan struct{} // closed by end

	wmu sync.Mutex // one writer at a time

	mu   sync.Mutex // guards code and why
	code int
	why  string
	once sync.Once
}

// pump reads the subscriber's messages into in.
func (g *grpcPeer) pump() {
	defer close(g.in)
	for {
		m, err := g.s.Recv()
		if err != nil {
			g.err = err
			return
		}
		select {
		case g.in <- inbound{data: m.Json}:
		case <-g.done:
			return
		}
	}
}

func (g *grpcPeer) next() (inbound, error) {
	select {
	case in, ok := <-g.in:
		if !ok {
			return inbound{}, g.err
		}
		return in, nil
	case <-g.done:
		return inbound{}, errors.New("the producer ended the stream")
	}
}

func (g *grpcPeer) send(msg []byte) error {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	select {
	case <-g.done:
		return errors.New("the stream has ended")
	default:
	}
	return g.s.Send(&aaeppb.AaepMessage{Json: msg, MessageType: protocol.PeekType(msg)})
}

func (g *grpcPeer) answer(_ inbound, msg []byte, _ bool) error { return g.send(msg) }

// end makes next return; the handler then returns the status that says
// why.
func (g *grpcPeer) end(code int, reason string) {
	g.once.Do(func() {
		g.mu.Lock()
		g.code, g.why = code, reason
		g.mu.Unlock()
		close(g.done)
	})
}

// status is the stream's final status: OK for a subscription that ended,
// UNAVAILABLE for a producer going away (the subscriber reconnects).
func (g *grpcPeer) status() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.code == protocol.CloseGoingAway {
		return status.Error(codes.Unavailable, g.why)
	}
	return nil
}
