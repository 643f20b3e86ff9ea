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
