// grpcopts.go: what a program says to the gRPC binding, which lives in
// package transport/grpcbind so that only programs that use it link gRPC.

package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"time"
)

// GRPCBinding is the gRPC binding (appendix B.5). Package
// transport/grpcbind has the one: a program that reaches gRPC producers
// sets Options.GRPCBinding to grpcbind.Binding{}; a program that does not
// never links gRPC.
type GRPCBinding interface {
	// DialGRPC connects to a grpc:// or grpcs:// endpoint, opens the
	// Subscribe stream and sends the subscription request; ctx bounds
	// this first attempt only.
	DialGRPC(ctx context.Context, ep Endpoint, opts GRPCOptions) (Conn, error)
	// GetManifest asks the producer for its manifest (the GetManifest
	// call) and returns its JSON or JWS text; an error wrapping
	// ErrNoManifestCall when the producer does not offer the call.
	GetManifest(ctx context.Context, ep Endpoint, opts GRPCOptions) ([]byte, error)
}

// ErrNoManifestCall is wrapped by the error of GRPCBinding.GetManifest
// when the producer does not offer the call.
var ErrNoManifestCall = errors.New("transport: the producer offers no GetManifest call")

// GRPCOptions configures the gRPC binding. The zero value is usable.
type GRPCOptions struct {
	LinkOptions

	// Token, if not empty, is sent on every call to this endpoint as
	// "authorization: Bearer <Token>" metadata.
	Token string
	// TLSConfig is used for grpcs:// endpoints (the CA, and the client
	// certificate for mutual TLS); nil means the system's roots.
	TLSConfig *tls.Config
	// StreamDeadline bounds one Subscribe stream; when it passes, the
	// stream is opened again as after any loss. Zero means
	// DefaultStreamDeadline.
	StreamDeadline time.Duration
	// Keepalive is how often an idle connection pings the producer; one
	// that does not answer within a third of it is taken for lost. Zero
	// means DefaultGRPCKeepalive; negative means no pings.
	Keepalive time.Duration
	// ConnectTimeout bounds each attempt to reach the producer and open
	// the Subscribe stream, as SSEOptions.HeaderTimeout bounds the wait
	// for response headers (--connect-timeout): a producer that accepts
	// the connection and then says nothing fails the first attempt with a
	// *HeaderTimeoutError, and a reconnect tries again. Zero means
	// DefaultHeaderTimeout; negative, gRPC's own 20 seconds.
	ConnectTimeout time.Duration
}

// ConnectBound is o's bound of one attempt to connect (ConnectTimeout
// with its default).
func (o GRPCOptions) ConnectBound() time.Duration {
	if d := headerTimeout(o.ConnectTimeout); d > 0 {
		return d
	}
	return 20 * time.Second // gRPC's own
}

// DefaultStreamDeadline is the long deadline of one Subscribe stream
// (appendix B.5.4 asks for hours).
const DefaultStreamDeadline = 12 * time.Hour

// DefaultGRPCKeepalive is GRPCOptions.Keepalive's default: the most often a
// producer with gRPC's default enforcement accepts pings.
const DefaultGRPCKeepalive = 5 * time.Minute
