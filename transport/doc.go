// Package transport carries AAEP frames between a producer and this subscriber:
// one Conn per binding (SSE with its HTTP back channel, WebSocket, Unix socket,
// stdio JSON-RPC, NDJSON files), with reconnects.
//
// Dial picks the binding from an endpoint: http:// and https:// go to DialSSE,
// ws:// and wss:// to DialWebSocket, unix: to DialUnix, exec: to DialStdio,
// file:PATH, a file path or "-" to OpenFileOptions. The package moves
// bytes and never reads what a message means; decoding is the protocol
// package's job. The one exception is the handshake: the message bindings
// look at the type of the first message, to mark the producer's answer to
// the subscription request (Frame.Event EventHandshake) and to know when the
// producer ended the subscription.
//
// Every Conn runs one reader goroutine that feeds Recv through a small queue,
// so a slow consumer holds the producer back (TCP flow control) instead of
// growing memory. Messages are bounded (DefaultMaxFrameBytes unless
// configured); a longer one is skipped without being buffered and reported,
// and the connection goes on.
//
// Errors: Recv and Send return ErrClosed (which also matches net.ErrClosed)
// after Close; Recv returns io.EOF when the producer ended for good.
// EndReasonOf says why a connection ended, typed (EndNormal, EndClosed,
// EndRejected, EndFailed), so a program need not read the words of the
// StatusClosed report. Send
// failures on HTTP are *HTTPError values carrying the producer's reason.
// A WebSocket closed with a code that forbids reconnecting gives a
// *CloseError (CloseWords says any code in words); a spawned producer that
// fails gives an *ExitError quoting its last lines on standard error.
//
// SSEReader is the incremental text/event-stream parser under DialSSE; it is
// exported for tools that read recorded streams.
package transport
