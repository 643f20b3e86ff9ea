// link.go: what the message bindings share (WebSocket, Unix socket, stdio):
// the handshake sent as the first message, its answer passed up as a frame,
// and reconnects that run the handshake again.

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// DefaultAnswerWait is how long a connection waits for the answer to its
// subscription request before telling the user it has none.
const DefaultAnswerWait = 10 * time.Second

// LinkOptions configure the bindings that carry the handshake on the
// connection itself. The zero value is usable: no handshake, default limits
// and backoff.
type LinkOptions struct {
	// SubscriptionRequest, if not empty, is sent unchanged as the first
	// message of every connection, reconnections included. The producer's
	// answer (subscription.accepted or subscription.rejected) is the frame
	// Recv returns with Event EventHandshake.
	SubscriptionRequest []byte
	// AnswerWait is how long to wait for that answer before saying, once
	// per connection, that the producer gave none; events are delivered
	// meanwhile all the same. Zero means DefaultAnswerWait.
	AnswerWait time.Duration

	// MaxFrameBytes bounds one message; longer ones are skipped and
	// reported to OnDiagnostic. Zero means DefaultMaxFrameBytes.
	MaxFrameBytes int

	// Reconnect delays grow from InitialBackoff doubling up to MaxBackoff,
	// each drawn at random from the upper half of its range. Zero means
	// DefaultInitialBackoff / DefaultMaxBackoff. MaxReconnects is how many
	// attempts in a row may fail before Recv gives up; zero means never give
	// up, negative means never reconnect. The stdio binding never
	// reconnects.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	MaxReconnects  int

	// OnStatus and OnDiagnostic, if not nil, are told status changes and
	// problems that do not end the connection, in plain words. They are
	// called from Dial and then from the connection's goroutine, in order,
	// and must not block. With InBand they are not called.
	OnStatus     StatusFunc
	OnDiagnostic func(msg string)
	// InBand, when set, makes Recv return the status changes and problems
	// as frames with a Note, in their place among the messages (see Note).
	InBand bool
}

func (o LinkOptions) withDefaults() LinkOptions {
	if o.AnswerWait <= 0 {
		o.AnswerWait = DefaultAnswerWait
	}
	if o.MaxFrameBytes <= 0 {
		o.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = DefaultInitialBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	o.MaxBackoff = max(o.MaxBackoff, o.InitialBackoff)
	return o
}

// link is one connection of a message binding.
type link interface {
	// read returns the next message from the producer. A
	// *FrameTooLargeError is not fatal; any other error ends the link.
	read() ([]byte, error)
	// write sends one message; it is called by one goroutine at a time.
	write(ctx context.Context, msg []byte) error
	// close ends the link, telling the producer why where the binding can
	// (a WebSocket close code); it makes a blocked read return.
	close(code int, reason string)
}

// ending is what a binding makes of the error that ended a link.
type ending struct {
	final  error     // nil: reconnect; io.EOF: a clean end; else the error Recv returns
	words  string    // for the user, in plain words
	reason EndReason // for programs, when final is not nil
}

// closedEnd is the end Close makes.
var closedEnd = ending{final: ErrClosed, reason: EndClosed}

// binding is what linkConn needs from a binding.
type binding struct {
	name string // "WebSocket", for messages
	// dial opens a link; diag tells a problem that does not end it.
	dial func(ctx context.Context, diag func(string)) (link, error)
	// end judges the error that ended a link; nil means the shared rules.
	end func(err error) (ending, bool)
	// noReconnect: the link cannot be opened again (a spawned process).
	noReconnect bool
	// warning, when not empty, is told as a problem after "connecting":
	// the connection is not encrypted, for example.
	warning string
}

// linkConn is a Conn over a message binding.
type linkConn struct {
	o LinkOptions // with defaults
	b binding
	*pump

	mu  sync.Mutex // guards cur
	cur link       // nil while (re)connecting or after Close

	wmu sync.Mutex // one writer at a time

	closing atomic.Bool // Send carried a subscription.close
}

// dialLink makes the first connection and starts the reader; ctx bounds the
// first connection only.
func dialLink(ctx context.Context, b binding, opts LinkOptions) (Conn, error) {
	c := &linkConn{o: opts.withDefaults(), b: b, pump: newDialPump(opts.InBand)}
	c.status(StatusConnecting, "")
	if b.warning != "" {
		c.diag(b.warning)
	}
	l, err := c.open(ctx)
	if err != nil {
		c.pump.close()
		return nil, err
	}
	c.status(StatusConnected, "")
	c.pump.handOver()
	go c.run(l)
	return c, nil
}

// open dials and sends the subscription request.
func (c *linkConn) open(ctx context.Context) (link, error) {
	dctx, cancel := context.WithCancel(c.pump.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	l, err := c.b.dial(dctx, c.diag)
	if err != nil {
		if c.pump.closed.Load() {
			return nil, ErrClosed
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("transport: connect over %s: %w", c.b.name, ctx.Err())
		}
		return nil, err
	}
	if len(c.o.SubscriptionRequest) > 0 {
		c.wmu.Lock()
		err = l.write(dctx, c.o.SubscriptionRequest)
		c.wmu.Unlock()
		if err != nil {
			l.close(protocol.CloseNormal, "")
			return nil, fmt.Errorf("transport: send the subscription request over %s: %w", c.b.name, err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pump.closed.Load() {
		l.close(protocol.CloseBySubscriber, "subscriber closed")
		return nil, ErrClosed
	}
	c.cur = l
	return l, nil
}

// run is the reader goroutine: it delivers frames and reconnects.
func (c *linkConn) run(l link) {
	end := c.loop(l)
	c.status(StatusClosed, end.words)
	c.pump.finish(end.final, end.reason)
}

func (c *linkConn) loop(l link) ending {
	failed := 0
	var lastErr error
	var down outage
	for {
		if l != nil {
			n, end := c.read(l)
			c.mu.Lock()
			c.cur = nil
			c.mu.Unlock()
			l.close(protocol.CloseNormal, "")
			l = nil
			if c.pump.closed.Load() {
				return closedEnd
			}
			if end.final != nil {
				return end
			}
			if n > 0 {
				failed = 0
			}
			lastErr = errors.New(end.words)
			if c.b.noReconnect || c.o.MaxReconnects < 0 {
				return ending{final: fmt.Errorf("transport: %s connection lost: %s", c.b.name, end.words), words: end.words}
			}
			c.status(StatusReconnecting, end.words)
			down.lost()
		}
		failed++
		if c.o.MaxReconnects > 0 && failed > c.o.MaxReconnects {
			return ending{final: fmt.Errorf("transport: gave up reconnecting: %w", lastErr), words: "Gave up reconnecting."}
		}
		if !c.pump.sleep(backoff(c.o.InitialBackoff, c.o.MaxBackoff, failed)) {
			return closedEnd
		}
		var err error
		l, err = c.open(c.pump.ctx)
		switch {
		case err == nil:
			c.status(StatusConnected, "")
		case c.pump.closed.Load():
			return closedEnd
		default:
			if end, ok := c.judge(err); ok && end.final != nil {
				return end
			}
			lastErr = err
			if words := down.failed(err); words != "" {
				c.diag(words)
			}
		}
	}
}

// judge applies the binding's rules, then the shared ones, to err.
func (c *linkConn) judge(err error) (ending, bool) {
	if c.b.end != nil {
		if e, ok := c.b.end(err); ok {
			return e, true
		}
	}
	var fatal *fatalError
	if errors.As(err, &fatal) {
		return ending{final: err, words: fatal.words}, true
	}
	return ending{}, false
}

// fatalError is a failure that reconnecting cannot mend.
type fatalError struct {
	err   error
	words string
}

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// read delivers one link's frames until it ends; n counts them.
func (c *linkConn) read(l link) (n int, end ending) {
	var answered atomic.Bool
	waiting := len(c.o.SubscriptionRequest) > 0
	if waiting {
		t := time.AfterFunc(c.o.AnswerWait, func() {
			if !answered.Load() && !c.pump.closed.Load() {
				c.diag(fmt.Sprintf("The producer has not answered the subscription request after %s; "+
					"listening anyway, without negotiated terms.", c.o.AnswerWait.Round(time.Millisecond)))
			}
		})
		defer t.Stop()
	}
	closedByProducer := false
	for {
		data, err := l.read()
		if err != nil {
			var tl *FrameTooLargeError
			if errors.As(err, &tl) {
				c.diag(fmt.Sprintf("Skipped a message from the producer that is too large: %d bytes, the limit is %d bytes.", tl.Size, tl.Limit))
				continue
			}
			e, judged := c.judge(err)
			if judged && e.final != nil {
				return n, e
			}
			if closedByProducer {
				return n, ending{final: io.EOF, words: "The producer closed the subscription.", reason: EndNormal}
			}
			if c.closing.Load() {
				return n, ending{final: io.EOF, words: "The subscription is closed.", reason: EndClosed}
			}
			if judged {
				return n, e
			}
			return n, ending{words: lossWords(err)}
		}
		f := Frame{Data: data, At: time.Now()}
		typ := subscriptionType(data)
		if waiting {
			waiting = false
			answered.Store(true)
			switch typ {
			case "subscription.accepted", "subscription.rejected":
				f.Event = EventHandshake
			default:
				c.diag("The producer sent events without answering the subscription request; " +
					"the terms it applies are unknown.")
			}
		}
		if !c.put(f) {
			return n, closedEnd
		}
		n++
		switch typ {
		case "subscription.rejected":
			if f.Event == EventHandshake {
				return n, ending{final: io.EOF, words: "The producer rejected the subscription.", reason: EndRejected}
			}
			closedByProducer = true // a refused renegotiation ends it
		case "subscription.close":
			closedByProducer = true
		}
	}
}

// subscriptionType returns the type of a subscription message, or "" for
// anything else; it decodes only frames that may be one.
func subscriptionType(data []byte) string {
	if !bytes.Contains(data, []byte(`"subscription.`)) {
		return ""
	}
	var m struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &m) != nil || !bytes.HasPrefix([]byte(m.Type), []byte("subscription.")) {
		return ""
	}
	return m.Type
}

func (c *linkConn) status(s Status, detail string) {
	c.pump.tell(Note{Status: s, Text: detail}, c.o.OnStatus, c.o.OnDiagnostic)
}

func (c *linkConn) diag(msg string) {
	c.pump.tell(Note{Problem: true, Text: msg}, c.o.OnStatus, c.o.OnDiagnostic)
}

// Recv implements Conn. The producer's answer to the subscription request
// comes first, as a frame with Event EventHandshake, after every connection
// and reconnection. Recv returns io.EOF after a rejected subscription or
// when the producer ended the subscription, ErrClosed after Close, and
// otherwise the error that made the connection give up.
func (c *linkConn) Recv(ctx context.Context) (Frame, error) { return c.pump.recv(ctx) }

// RecvBatch implements BatchReceiver.
func (c *linkConn) RecvBatch(ctx context.Context, dst []Frame, limit int) ([]Frame, error) {
	return c.pump.recvBatch(ctx, dst, limit)
}

// ErrReconnecting is returned by Send while a connection that was lost is
// being made again; the message was not sent.
var ErrReconnecting = errors.New("transport: not connected to the producer right now (reconnecting); the message was not sent")

// Send implements Conn: the message goes out as one frame on the same
// connection. A nil error means it was written.
func (c *linkConn) Send(ctx context.Context, msg []byte) error {
	if c.pump.closed.Load() {
		return ErrClosed
	}
	c.mu.Lock()
	l := c.cur
	c.mu.Unlock()
	if l == nil {
		return ErrReconnecting
	}
	if subscriptionType(msg) == "subscription.close" {
		c.closing.Store(true) // the producer hanging up next is the end
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := l.write(ctx, msg); err != nil {
		if c.pump.closed.Load() {
			return ErrClosed
		}
		return fmt.Errorf("transport: send over %s: %w", c.b.name, err)
	}
	return nil
}

// Close implements Conn. It tells the producer the subscriber is leaving
// (WebSocket close code 4005) and ends the connection; send
// subscription.close first for a clean end of the subscription.
func (c *linkConn) Close() error {
	if !c.pump.close() {
		return nil
	}
	c.mu.Lock()
	l := c.cur
	c.cur = nil
	c.mu.Unlock()
	if l != nil {
		l.close(protocol.CloseBySubscriber, "subscriber closed")
	}
	return nil
}
