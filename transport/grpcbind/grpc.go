// Package grpcbind is the gRPC binding of package transport (appendix B.5):
// one bidirectional Subscribe stream per connection, each AAEP message as
// the JSON inside an AaepMessage. It is a package of its own so that only
// the programs that reach gRPC producers link gRPC: they set
// transport.Options.GRPCBinding (and so subscriber.Config.Transport's) to
// Binding{}.
package grpcbind

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	grpcbackoff "google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/aaep-term/aaep-term/internal/aaeppb"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// Binding is the gRPC binding: set transport.Options.GRPCBinding to
// Binding{} to reach grpc:// and grpcs:// endpoints.
type Binding struct{}

// DialGRPC is Dial, for transport.GRPCBinding.
func (Binding) DialGRPC(ctx context.Context, ep transport.Endpoint, opts transport.GRPCOptions) (transport.Conn, error) {
	return dial(ctx, ep, opts)
}

// GetManifest is GetManifest, for transport.GRPCBinding.
func (Binding) GetManifest(ctx context.Context, ep transport.Endpoint, opts transport.GRPCOptions) ([]byte, error) {
	return getManifest(ctx, ep, opts)
}

// sendTimeout bounds one message sent, so a stuck producer cannot freeze
// the client.
const sendTimeout = 10 * time.Second

// grpcSlack is what the gRPC message may have beyond the JSON it wraps: the
// message type and the protobuf framing.
const grpcSlack = 4 << 10

// GRPCError is a Subscribe stream or call that the producer ended with a
// status that forbids retrying (UNAUTHENTICATED, PERMISSION_DENIED,
// UNIMPLEMENTED, …). Message is the producer's text, sanitized.
type GRPCError struct {
	Code    codes.Code
	Message string
}

func (e *GRPCError) Error() string {
	s := "transport: the producer ended the gRPC call with " + GRPCCodeWords(e.Code)
	if e.Message != "" {
		s += " (" + e.Message + ")"
	}
	return s
}

// GRPCCodeWords names a gRPC status code and says what it means, in plain
// words.
func GRPCCodeWords(c codes.Code) string {
	w, ok := grpcCodeWords[c]
	if !ok {
		return fmt.Sprintf("status code %d", uint32(c))
	}
	return w
}

var grpcCodeWords = map[codes.Code]string{
	codes.OK:                 "OK",
	codes.Canceled:           "CANCELLED: the call was cancelled",
	codes.Unknown:            "UNKNOWN: an unknown error",
	codes.InvalidArgument:    "INVALID_ARGUMENT: the producer found the request invalid",
	codes.DeadlineExceeded:   "DEADLINE_EXCEEDED: the time allowed ran out",
	codes.NotFound:           "NOT_FOUND: the producer does not have it",
	codes.AlreadyExists:      "ALREADY_EXISTS",
	codes.PermissionDenied:   "PERMISSION_DENIED: the producer does not allow this subscriber",
	codes.ResourceExhausted:  "RESOURCE_EXHAUSTED: a limit was reached (too many subscribers, or a message too large)",
	codes.FailedPrecondition: "FAILED_PRECONDITION: the producer is not in a state to serve this",
	codes.Aborted:            "ABORTED: the call was aborted",
	codes.OutOfRange:         "OUT_OF_RANGE",
	codes.Unimplemented:      "UNIMPLEMENTED: the producer does not offer the AAEP gRPC service",
	codes.Internal:           "INTERNAL: an internal error",
	codes.Unavailable:        "UNAVAILABLE: the producer cannot be reached or is going away",
	codes.DataLoss:           "DATA_LOSS: data was lost",
	codes.Unauthenticated:    "UNAUTHENTICATED: the producer wants valid credentials",
}

// grpcTarget checks a grpc:// or grpcs:// endpoint and returns its
// host:port.
func grpcTarget(ep transport.Endpoint) (*url.URL, error) {
	u, endpoint := ep.URL, ep.String()
	if ep.Binding != transport.BindingGRPC || u == nil {
		return nil, fmt.Errorf("transport: %q is not a grpc:// or grpcs:// endpoint", endpoint)
	}
	if u.Hostname() == "" || u.Port() == "" {
		return nil, fmt.Errorf("transport: the gRPC endpoint %q needs a host and a port, as in grpc://HOST:PORT", endpoint)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return nil, fmt.Errorf("transport: the gRPC endpoint %q has more than grpc://HOST:PORT", endpoint)
	}
	return u, nil
}

// grpcClient makes the client connection for an endpoint; it connects
// lazily, on the first call.
func grpcClient(u *url.URL, token string, tlsConfig *tls.Config, keep, connect time.Duration, maxMsg int, lo transport.LinkOptions) (*grpc.ClientConn, error) {
	creds := insecure.NewCredentials()
	if u.Scheme == "grpcs" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if tlsConfig != nil {
			cfg = tlsConfig.Clone()
			cfg.MinVersion = max(cfg.MinVersion, tls.VersionTLS12)
		}
		creds = credentials.NewTLS(cfg)
	}
	dopts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsg)),
		grpc.WithUserAgent("aaep-term"),
		// A producer's headers and trailers (its status message among
		// them) are bounded as a message is.
		grpc.WithMaxHeaderListSize(64 << 10),
		// gRPC's own wait between connection attempts follows the
		// link's backoff, not its default (up to two minutes), so a
		// producer that comes back is reached when the link retries.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           grpcbackoff.Config{BaseDelay: lo.InitialBackoff, Multiplier: 2, Jitter: 0.2, MaxDelay: lo.MaxBackoff},
			MinConnectTimeout: connect,
		}),
	}
	if keep == 0 {
		keep = transport.DefaultGRPCKeepalive
	}
	if keep > 0 {
		dopts = append(dopts, grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: keep, Timeout: max(keep/3, time.Second)}))
	}
	if token != "" {
		// Unary and stream interceptors add the token to calls on this
		// connection only, which reaches this one host.
		md := func(ctx context.Context) context.Context {
			return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
		}
		dopts = append(dopts,
			grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
				return invoker(md(ctx), method, req, reply, cc, opts...)
			}),
			grpc.WithStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
				return streamer(md(ctx), desc, cc, method, opts...)
			}))
	}
	cc, err := grpc.NewClient("passthrough:///"+u.Host, dopts...)
	if err != nil {
		return nil, fmt.Errorf("transport: gRPC client for %s: %w", u.Host, err)
	}
	return cc, nil
}

// Dial connects to a producer at a grpc:// or grpcs:// endpoint
// (HOST:PORT), opens the Subscribe stream, sends the subscription request as
// its first message and returns once the stream is open; ctx bounds this
// first attempt. See transport.LinkOptions for the handshake and reconnects: a lost
// stream is opened again, with backoff, and the request sent again
// (appendix B.5.4).
//
// The status that ends a stream decides what follows: OK ends the
// connection (Recv returns io.EOF); UNAUTHENTICATED, PERMISSION_DENIED,
// UNIMPLEMENTED, INVALID_ARGUMENT, NOT_FOUND and FAILED_PRECONDITION end it
// with a *GRPCError; anything else reconnects.
//
// It is Binding.DialGRPC; transport.Dial calls it for a grpc:// endpoint
// when Options.GRPCBinding is Binding{}.
func Dial(ctx context.Context, endpoint string, opts transport.GRPCOptions) (transport.Conn, error) {
	ep, err := transport.ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	return dial(ctx, ep, opts)
}

func dial(ctx context.Context, ep transport.Endpoint, opts transport.GRPCOptions) (transport.Conn, error) {
	u, err := grpcTarget(ep)
	if err != nil {
		return nil, err
	}
	lo := opts.WithDefaults()
	connect := opts.ConnectBound()
	cc, err := grpcClient(u, opts.Token, opts.TLSConfig, opts.Keepalive, connect, lo.MaxFrameBytes*4+grpcSlack, lo)
	if err != nil {
		return nil, err
	}
	deadline := opts.StreamDeadline
	if deadline <= 0 {
		deadline = transport.DefaultStreamDeadline
	}
	client := aaeppb.NewAaepServiceClient(cc)
	b := transport.LinkBinding{
		Name: "gRPC",
		Open: func(ctx context.Context, _ func(string)) (transport.Link, error) {
			l, err := dialGRPCStream(ctx, client, deadline, connect, lo.MaxFrameBytes)
			var late *transport.HeaderTimeoutError
			if errors.As(err, &late) {
				late.URL = u.Redacted()
			}
			if err != nil {
				return nil, err
			}
			return l, nil
		},
		End: grpcEnding,
	}
	if u.Scheme == "grpc" && !transport.IsLoopback(u.Hostname()) {
		b.Warning = fmt.Sprintf("The connection to %s is not encrypted: anyone on the network between you can read the events "+
			"and your answers, and change them. Use grpcs:// if the producer offers it.", u.Host)
	}
	c, err := transport.DialLinkBinding(ctx, b, opts.LinkOptions)
	if err != nil {
		cc.Close()
		return nil, err
	}
	return &grpcConn{Conn: c, cc: cc}, nil
}

// grpcConn closes the client connection with the Conn.
type grpcConn struct {
	transport.Conn
	cc *grpc.ClientConn
}

func (g *grpcConn) Close() error {
	err := g.Conn.Close()
	g.cc.Close()
	return err
}

// dialGRPCStream opens one Subscribe stream; ctx and connect bound the
// opening (a *HeaderTimeoutError when connect ran out), the stream itself
// lives until its deadline or close.
func dialGRPCStream(ctx context.Context, client aaeppb.AaepServiceClient, deadline, connect time.Duration, max int) (*grpcLink, error) {
	sctx, cancel := context.WithTimeout(context.Background(), deadline)
	octx, ocancel := context.WithTimeout(ctx, connect)
	defer ocancel()
	stop := context.AfterFunc(octx, cancel)
	s, err := client.Subscribe(sctx)
	if !stop() || err != nil {
		cancel()
		if ctx.Err() == nil && errors.Is(octx.Err(), context.DeadlineExceeded) {
			return nil, &transport.HeaderTimeoutError{After: connect}
		}
		if err == nil {
			err = ctx.Err()
		}
		return nil, grpcErr("open the Subscribe stream", err)
	}
	return &grpcLink{s: s, cancel: cancel, max: max, ended: make(chan struct{})}, nil
}

// grpcErr wraps a gRPC error: a status that forbids retrying becomes a
// fatal *GRPCError, any other one an error in words.
func grpcErr(what string, err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return fmt.Errorf("transport: %s: %w", what, err)
	}
	ge := &GRPCError{Code: st.Code(), Message: transport.ProducerLine(st.Message(), 200)}
	if grpcFinal(st.Code()) {
		return transport.Final(ge, grpcSentence(ge))
	}
	if st.Code() == codes.Unavailable && strings.Contains(st.Message(), "authentication handshake failed") {
		// gRPC reports a refused certificate as UNAVAILABLE; trying
		// again cannot mend it.
		return transport.Final(ge, "The TLS handshake with the producer failed: "+ge.Message+".")
	}
	return fmt.Errorf("transport: %s: %w", what, ge)
}

// grpcFinal reports whether a stream ended with code must not be retried.
func grpcFinal(c codes.Code) bool {
	switch c {
	case codes.Unauthenticated, codes.PermissionDenied, codes.Unimplemented,
		codes.InvalidArgument, codes.NotFound, codes.FailedPrecondition:
		return true
	}
	return false
}

// grpcSentence is the producer's status in one sentence for the user.
func grpcSentence(e *GRPCError) string {
	s := "The producer ended the gRPC stream with " + GRPCCodeWords(e.Code)
	if e.Message != "" {
		s += " (" + e.Message + ")"
	}
	return s + "."
}

// grpcEnding judges the end of a Subscribe stream by its status.
func grpcEnding(err error) (transport.LinkEnd, bool) {
	if errors.Is(err, io.EOF) {
		return transport.LinkEnd{Err: io.EOF, Words: "The producer ended the gRPC stream.", Reason: transport.EndNormal}, true
	}
	var ge *GRPCError
	if !errors.As(err, &ge) {
		return transport.LinkEnd{}, false // the shared rules
	}
	words := grpcSentence(ge)
	if grpcFinal(ge.Code) {
		return transport.LinkEnd{Err: ge, Words: words}, true
	}
	return transport.LinkEnd{Words: words}, true // reconnect
}

// grpcLink is one Subscribe stream.
type grpcLink struct {
	s      grpc.BidiStreamingClient[aaeppb.AaepMessage, aaeppb.AaepMessage]
	cancel context.CancelFunc // cancels the stream at once
	max    int

	reading atomic.Bool   // read has been called: only it may call Recv
	wmu     sync.Mutex    // one of Send and CloseSend at a time
	ended   chan struct{} // closed when read sees the stream's end
	endOnce sync.Once
	once    sync.Once
}

func (g *grpcLink) Read() ([]byte, error) {
	g.reading.Store(true)
	m, err := g.s.Recv()
	if err != nil {
		g.endOnce.Do(func() { close(g.ended) })
		return nil, grpcRecvErr(err)
	}
	if len(m.Json) > g.max {
		return nil, &transport.FrameTooLargeError{Size: int64(len(m.Json)), Limit: g.max}
	}
	return m.Json, nil
}

func (g *grpcLink) Write(ctx context.Context, msg []byte) error {
	// Send blocks only on flow control; canceling the stream unblocks it,
	// as a write deadline does on the other bindings.
	stop := context.AfterFunc(ctx, g.cancel)
	defer stop()
	t := time.AfterFunc(sendTimeout, g.cancel)
	defer t.Stop()
	g.wmu.Lock()
	defer g.wmu.Unlock()
	err := g.s.Send(&aaeppb.AaepMessage{Json: msg, MessageType: protocol.PeekType(msg)})
	if errors.Is(err, io.EOF) && !g.reading.Load() {
		// The producer ended the stream before the subscription request
		// (a refused token, say): its status comes from Recv, which
		// nobody else calls yet.
		_, rerr := g.s.Recv()
		if e := grpcRecvErr(rerr); e != nil && !errors.Is(e, io.EOF) {
			var ge *GRPCError
			if errors.As(e, &ge) && grpcFinal(ge.Code) {
				return transport.Final(ge, grpcSentence(ge))
			}
			return e
		}
	}
	return err
}

// grpcRecvErr turns what a stream's Recv returned into the link's error: io.EOF
// for a stream the producer ended with OK, a *GRPCError for a status.
func grpcRecvErr(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	if st, ok := status.FromError(err); ok {
		return &GRPCError{Code: st.Code(), Message: transport.ProducerLine(st.Message(), 200)}
	}
	return err
}

// grpcCloseWait bounds how long close waits for the producer to end the
// stream after the subscriber's half-close.
const grpcCloseWait = time.Second

// close half-closes the stream and waits, up to grpcCloseWait, for the
// producer to end it, then cancels it. A message that Send queued (a
// subscription.close, a last reply) is so written before the stream is
// torn down: canceling at once could drop it.
func (g *grpcLink) Close() {
	g.once.Do(func() {
		defer g.cancel()
		if !g.wmu.TryLock() {
			return // a Send is blocked: the producer reads nothing
		}
		err := g.s.CloseSend()
		g.wmu.Unlock()
		if err != nil {
			return
		}
		t := time.NewTimer(grpcCloseWait)
		defer t.Stop()
		select {
		case <-g.ended:
		case <-t.C:
		}
	})
}

// GetManifest asks a gRPC producer for its manifest (the GetManifest call
// of appendix B.5) and returns its JSON or JWS text. A producer that does
// not offer the call gives a *GRPCError with codes.Unimplemented, which
// wraps transport.ErrNoManifestCall.
func GetManifest(ctx context.Context, endpoint string, opts transport.GRPCOptions) ([]byte, error) {
	ep, err := transport.ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	return getManifest(ctx, ep, opts)
}

func getManifest(ctx context.Context, ep transport.Endpoint, opts transport.GRPCOptions) ([]byte, error) {
	u, err := grpcTarget(ep)
	if err != nil {
		return nil, err
	}
	lo := opts.WithDefaults()
	cc, err := grpcClient(u, opts.Token, opts.TLSConfig, -1, opts.ConnectBound(), lo.MaxFrameBytes+grpcSlack, lo)
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	m, err := aaeppb.NewAaepServiceClient(cc).GetManifest(ctx, &aaeppb.GetManifestRequest{})
	if err != nil {
		err = grpcRecvErr(err)
		if ge := (*GRPCError)(nil); errors.As(err, &ge) && ge.Code == codes.Unimplemented {
			return nil, fmt.Errorf("transport: GetManifest from %s: %w: %w", u.Host, transport.ErrNoManifestCall, err)
		}
		return nil, fmt.Errorf("transport: GetManifest from %s: %w", u.Host, err)
	}
	return m.Json, nil
}
