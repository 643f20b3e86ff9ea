// extlink.go: a message binding made outside this package — a bridge that
// turns another protocol into AAEP messages (package acp) — given the
// handshake, status notes and ending every message binding has.

package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Link is one connection to a producer that another package makes: a
// bridge from another protocol. It speaks AAEP messages, one at a time.
type Link interface {
	// Read returns the producer's next message. It returns io.EOF when the
	// producer ended cleanly; any other error ends the connection with it.
	Read() ([]byte, error)
	// Write hands the producer one message from the subscriber (the
	// subscription request, replies, renegotiation, close). It is called
	// by one goroutine at a time.
	Write(ctx context.Context, msg []byte) error
	// Close ends the link and makes a blocked Read return.
	Close()
}

// DialLink makes a Conn over the Link open returns, as the stdio binding
// does over a spawned producer: the subscription request goes first, its
// answer is the handshake frame, status and problems are told as opts says
// (open's diag tells a problem that does not end the link), and Close ends
// the link. It never reconnects. name names the binding in messages.
func DialLink(ctx context.Context, name string, open func(ctx context.Context, diag func(string)) (Link, error), opts LinkOptions) (Conn, error) {
	if open == nil {
		return nil, errors.New("transport: no link to open")
	}
	opts.MaxReconnects = -1
	b := binding{
		name:        name,
		noReconnect: true,
		dial: func(ctx context.Context, diag func(string)) (link, error) {
			l, err := open(ctx, diag)
			if err != nil {
				return nil, &fatalError{err: err, words: "The " + name + " producer could not be started."}
			}
			return extLink{l}, nil
		},
		end: func(err error) (ending, bool) {
			if errors.Is(err, io.EOF) {
				return ending{final: io.EOF, words: "The " + name + " producer ended.", reason: EndNormal}, true
			}
			return ending{final: fmt.Errorf("transport: %s: %w", name, err), words: cleanLine(err.Error(), stderrLine)}, true
		},
	}
	return dialLink(ctx, b, opts)
}

// extLink is a Link as linkConn sees it.
type extLink struct{ l Link }

func (e extLink) read() ([]byte, error)                       { return e.l.Read() }
func (e extLink) write(ctx context.Context, msg []byte) error { return e.l.Write(ctx, msg) }
func (e extLink) close(int, string)                           { e.l.Close() }

// LinkBinding is a message binding made in another package (the gRPC one,
// in package transport/grpcbind) over what every message binding here
// shares: the subscription request sent first on every connection, status
// notes, and reconnects with backoff as LinkOptions say.
type LinkBinding struct {
	// Name names the binding in messages ("gRPC").
	Name string
	// Open opens one connection; diag tells a problem that does not end
	// it. An error made by Final is not retried.
	Open func(ctx context.Context, diag func(string)) (Link, error)
	// End judges the error that ended a connection (Read's), unless it is
	// a Final one; ok false means the shared rules: io.EOF ends cleanly, a
	// Final error for good, anything else reconnects.
	End func(err error) (end LinkEnd, ok bool)
	// Warning, when not empty, is told as a problem after "connecting":
	// that the connection is not encrypted, for example.
	Warning string
}

// LinkEnd is what a LinkBinding makes of the error that ended a
// connection.
type LinkEnd struct {
	// Err is what Recv returns: nil reconnects, io.EOF is a clean end.
	Err    error
	Words  string    // the end in plain words, for the user
	Reason EndReason // why, for programs, when Err is not nil
}

// DialLinkBinding makes the first connection of b, as the WebSocket
// binding does; ctx bounds that first connection only.
func DialLinkBinding(ctx context.Context, b LinkBinding, opts LinkOptions) (Conn, error) {
	if b.Open == nil {
		return nil, errors.New("transport: no link to open")
	}
	in := binding{
		name:    b.Name,
		warning: b.Warning,
		dial: func(ctx context.Context, diag func(string)) (link, error) {
			l, err := b.Open(ctx, diag)
			if err != nil {
				return nil, err
			}
			return extLink{l}, nil
		},
	}
	if b.End != nil {
		in.end = func(err error) (ending, bool) {
			if fatal := (*fatalError)(nil); errors.As(err, &fatal) {
				return ending{}, false // the shared rules
			}
			e, ok := b.End(err)
			return ending{final: e.Err, words: e.Words, reason: e.Reason}, ok
		}
	}
	return dialLink(ctx, in, opts)
}

// Final marks err as one that ends a connection for good, not to be
// retried; words say so to the user.
func Final(err error, words string) error { return &fatalError{err: err, words: words} }

// WithDefaults returns o with its zero limits and backoff set to their
// defaults.
func (o LinkOptions) WithDefaults() LinkOptions { return o.withDefaults() }

// ProducerLine is a producer's text made one short line to show: sanitized,
// its line breaks folded, cut to at most max bytes.
func ProducerLine(s string, max int) string { return cleanLine(s, max) }
