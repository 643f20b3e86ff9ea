// endpoint.go: choosing a binding from the endpoint a user names.

package transport

import (
	"context"
	"fmt"
	"os"
	"strings"
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

// Dial connects to endpoint, choosing the binding from its form:
//
//	http://…, https://…        SSE with an HTTP back channel (DialSSE)
//	file:PATH, file:///PATH     newline-delimited JSON or a capture (OpenFileOptions)
//	-                           the same, from standard input
//	PATH of an existing file    the same
//	ws://…, wss://…             WebSocket (DialWebSocket)
//	unix:PATH, unix:ID          a Unix socket, by path or producer id (DialUnix)
//	grpc://HOST:PORT, grpcs://…  gRPC, appendix B.5 (DialGRPC)
//	exec:COMMAND ARGS…          a spawned producer on stdio JSON-RPC (DialStdio;
//	                            words split as SplitCommand says); stdio: is the same
//	acp:COMMAND ARGS…           an ACP agent, bridged by Options.ACP
//
// ctx bounds the connection attempt only.
func Dial(ctx context.Context, endpoint string, opts Options) (Conn, error) {
	if opts.File.OnStatus == nil {
		opts.File.OnStatus = opts.SSE.OnStatus
	}
	if opts.File.OnDiagnostic == nil {
		opts.File.OnDiagnostic = opts.SSE.OnDiagnostic
	}
	opts.File.InBand = opts.File.InBand || opts.SSE.InBand
	if err := CheckEndpoint(endpoint); err != nil {
		return nil, err
	}
	_, rest, _ := strings.Cut(endpoint, ":")
	switch BindingOf(endpoint) {
	case BindingSSE:
		return DialSSE(ctx, endpoint, opts.SSE)
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
		return DialWebSocket(ctx, endpoint, opts.WebSocket)
	case BindingGRPC:
		opts.GRPC.LinkOptions = opts.linkDefaults(opts.GRPC.LinkOptions)
		if opts.GRPC.Token == "" {
			opts.GRPC.Token = opts.SSE.Token
		}
		if opts.GRPC.TLSConfig == nil {
			opts.GRPC.TLSConfig = opts.WebSocket.TLSConfig
		}
		if opts.GRPC.ConnectTimeout == 0 {
			opts.GRPC.ConnectTimeout = opts.SSE.HeaderTimeout
		}
		return DialGRPC(ctx, endpoint, opts.GRPC)
	case BindingUnix:
		opts.Unix.LinkOptions = opts.linkDefaults(opts.Unix.LinkOptions)
		return DialUnix(ctx, strings.TrimPrefix(rest, "//"), opts.Unix)
	case BindingStdio:
		argv, err := SplitCommand(rest)
		if err != nil {
			return nil, err
		}
		opts.Stdio.LinkOptions = opts.linkDefaults(opts.Stdio.LinkOptions)
		return DialStdio(ctx, argv, opts.Stdio)
	case BindingACP:
		argv, err := SplitCommand(rest)
		if err != nil {
			return nil, err
		}
		if opts.ACP == nil {
			return nil, fmt.Errorf("transport: %q names an ACP agent, and this program has no ACP bridge", endpoint)
		}
		return opts.ACP(ctx, argv, opts.linkDefaults(opts.Stdio.LinkOptions))
	}
	return openFileEndpoint(endpoint, opts.File)
}

// openFileEndpoint opens an endpoint of BindingFile: file:PATH (or
// file:///PATH), - for standard input, or the path of an existing file.
func openFileEndpoint(endpoint string, opts FileOptions) (Conn, error) {
	scheme, rest, _ := strings.Cut(endpoint, ":")
	if strings.EqualFold(scheme, "file") {
		path := rest
		if p, ok := strings.CutPrefix(rest, "//"); ok {
			// file:///abs/path, or file://localhost/abs/path
			path = p
			if i := strings.IndexByte(p, '/'); i > 0 {
				if host := p[:i]; host != "localhost" {
					return nil, fmt.Errorf("transport: %q names a file on another host (%s)", endpoint, host)
				}
				path = p[i:]
			}
		}
		if path == "" {
			return nil, fmt.Errorf("transport: %q names no file", endpoint)
		}
		return OpenFileOptions(path, opts)
	}
	if endpoint == "-" {
		return OpenFileOptions("-", opts)
	}
	if st, err := os.Stat(endpoint); err == nil && !st.IsDir() {
		return OpenFileOptions(endpoint, opts)
	}
	return nil, fmt.Errorf("transport: cannot tell how to reach %q: %s", endpoint, endpointForms)
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
