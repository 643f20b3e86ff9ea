// endpoint.go: choosing a binding from the endpoint a user names.

package transport

import (
	"context"
	"fmt"
	"net/url"
)

// Options configures Dial; each binding takes its part. The zero value is
// usable.
type Options struct {
	SSE SSEOptions
	// WebSocket, Unix and Stdio configure the message bindings. Where their
	// SubscriptionRequest, OnStatus or OnDiagnostic (and, for WebSocket,
	// Token or Header) is empty, the SSE one is used, so callers can set
	// them once; InBand is set when the SSE one is.
	WebSocket WSOptions
	Unix      UnixOptions
	Stdio     StdioOptions
	// GRPC configures grpc:// and grpcs:// endpoints; its handshake,
	// callbacks and Token default to the SSE ones, and its TLSConfig to the
	// WebSocket one.
	GRPC GRPCOptions
	// GRPCBinding reaches grpc:// and grpcs:// endpoints: grpcbind.Binding
	// (package transport/grpcbind) is the one. Nil: such endpoints are
	// refused, and a program that never names package grpcbind links no
	// gRPC.
	GRPCBinding GRPCBinding
	// File configures file and standard input endpoints. When its OnStatus
	// or OnDiagnostic is nil, the SSE one is used, so callers can set the
	// callbacks once.
	File FileOptions
	// ACP opens acp:COMMAND endpoints: it starts the agent argv (the
	// command split as SplitCommand says) and bridges it to AAEP, with the
	// handshake and callbacks of opts (package acp's Bridge.Dial is one).
	// Nil: such endpoints are refused.
	ACP func(ctx context.Context, argv []string, opts LinkOptions) (Conn, error)
}

// Endpoint is an endpoint parsed once, by ParseEndpoint: the binding it
// names and its parts. It is passed down as it is, as net/http passes a
// *url.URL: Dial, the bindings, and a subscriber's manifest check and
// signing read it and parse nothing again. The zero Endpoint names nothing.
type Endpoint struct {
	// Binding is the binding that reaches the endpoint.
	Binding Binding
	// URL is an SSE, WebSocket or gRPC endpoint's URL, its scheme in
	// lower case and without a fragment; nil for the other bindings. It
	// is shared: copy it before changing it.
	URL *url.URL
	// Path is a Unix socket's path or producer id, or the path of a file
	// of events ("-" for standard input).
	Path string
	// Argv is the command of an exec:, stdio: or acp: endpoint, split as
	// SplitCommand says.
	Argv []string

	raw string // as the user wrote it
}

// String returns the endpoint as the user wrote it.
func (e Endpoint) String() string { return e.raw }

// Dial connects to endpoint, choosing the binding from its form:
//
//	http://…, https://…        SSE with an HTTP back channel (DialSSE)
//	file:PATH, file:///PATH     newline-delimited JSON or a capture (OpenFileOptions)
//	-                           the same, from standard input
//	PATH of an existing file    the same
//	ws://…, wss://…             WebSocket (DialWebSocket)
//	unix:PATH, unix:ID          a Unix socket, by path or producer id (DialUnix)
//	grpc://HOST:PORT, grpcs://…  gRPC, appendix B.5, by Options.GRPCBinding
//	exec:COMMAND ARGS…          a spawned producer on stdio JSON-RPC (DialStdio;
//	                            words split as SplitCommand says); stdio: is the same
//	acp:COMMAND ARGS…           an ACP agent, bridged by Options.ACP
//
// It is ParseEndpoint and DialEndpoint. ctx bounds the connection attempt
// only, as it does for net.Dialer.DialContext.
func Dial(ctx context.Context, endpoint string, opts Options) (Conn, error) {
	ep, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	return DialEndpoint(ctx, ep, opts)
}

// DialEndpoint connects to an endpoint ParseEndpoint made, as Dial does.
// ctx bounds the connection attempt only: once DialEndpoint has returned,
// the connection lasts until Close, whatever becomes of ctx.
func DialEndpoint(ctx context.Context, ep Endpoint, opts Options) (Conn, error) {
	if opts.File.OnStatus == nil {
		opts.File.OnStatus = opts.SSE.OnStatus
	}
	if opts.File.OnDiagnostic == nil {
		opts.File.OnDiagnostic = opts.SSE.OnDiagnostic
	}
	opts.File.InBand = opts.File.InBand || opts.SSE.InBand
	switch ep.Binding {
	case BindingSSE:
		return dialSSE(ctx, ep.URL, opts.SSE)
	case BindingWebSocket:
		opts.WebSocket.LinkOptions = opts.linkDefaults(opts.WebSocket.LinkOptions)
		if opts.WebSocket.Token == "" {
			opts.WebSocket.Token = opts.SSE.Token
		}
		if opts.WebSocket.Header == nil {
			opts.WebSocket.Header = opts.SSE.Header
		}
		if opts.WebSocket.HeaderTimeout == 0 {
			opts.WebSocket.HeaderTimeout = opts.SSE.HeaderTimeout
		}
		return dialWebSocket(ctx, ep.URL, opts.WebSocket)
	case BindingGRPC:
		if opts.GRPCBinding == nil {
			return nil, fmt.Errorf("transport: %q names a gRPC producer, and this program has no gRPC binding (package transport/grpcbind)", ep)
		}
		return opts.GRPCBinding.DialGRPC(ctx, ep, opts.GRPCOptions())
	case BindingUnix:
		opts.Unix.LinkOptions = opts.linkDefaults(opts.Unix.LinkOptions)
		return DialUnix(ctx, ep.Path, opts.Unix)
	case BindingStdio:
		opts.Stdio.LinkOptions = opts.linkDefaults(opts.Stdio.LinkOptions)
		return DialStdio(ctx, ep.Argv, opts.Stdio)
	case BindingACP:
		if opts.ACP == nil {
			return nil, fmt.Errorf("transport: %q names an ACP agent, and this program has no ACP bridge", ep)
		}
		return opts.ACP(ctx, ep.Argv, opts.linkDefaults(opts.Stdio.LinkOptions))
	case BindingFile:
		if ep.Path != "" {
			return OpenFileOptions(ep.Path, opts.File)
		}
	}
	return nil, fmt.Errorf("transport: cannot tell how to reach %q: %s", ep, endpointForms)
}

// GRPCOptions returns o.GRPC with its handshake, callbacks and Token taken
// from the SSE options, and its TLSConfig from the WebSocket ones, where
// it has none.
func (o Options) GRPCOptions() GRPCOptions {
	g := o.GRPC
	g.LinkOptions = o.linkDefaults(g.LinkOptions)
	if g.Token == "" {
		g.Token = o.SSE.Token
	}
	if g.TLSConfig == nil {
		g.TLSConfig = o.WebSocket.TLSConfig
	}
	if g.ConnectTimeout == 0 {
		g.ConnectTimeout = o.SSE.HeaderTimeout
	}
	return g
}

// linkDefaults fills a message binding's handshake and callbacks from the
// SSE options where it has none.
func (o Options) linkDefaults(lo LinkOptions) LinkOptions {
	if len(lo.SubscriptionRequest) == 0 {
		lo.SubscriptionRequest = o.SSE.SubscriptionRequest
	}
	if lo.OnStatus == nil {
		lo.OnStatus = o.SSE.OnStatus
	}
	if lo.OnDiagnostic == nil {
		lo.OnDiagnostic = o.SSE.OnDiagnostic
	}
	lo.InBand = lo.InBand || o.SSE.InBand
	return lo
}
