package transport

import (
	"context"
	"errors"
	"io"
	"time"
)

// Frame is one message as it came off the wire, before decoding, or, on a
// connection opened with InBand notes, a note of the connection itself.
type Frame struct {
	Data  []byte    // the JSON text of one message; owned by the receiver
	ID    string    // SSE "id:" field, if any
	Event string    // SSE "event:" field, if any
	At    time.Time // when the frame was received, or the note made
	// Note, when not nil, makes the frame a note of the connection (a
	// status change or a problem), not a message: Data is empty. Notes
	// come only from a connection opened with InBand set, in their place
	// among the messages.
	Note *Note
}

// Note is what a connection says of itself, in its place among the
// messages it received: a status change, or a problem that did not end it.
// Recv returns the notes and messages of one connection in the order they
// happened, from one queue, so a status line can neither overtake the
// messages received before it nor follow those received after it.
type Note struct {
	// Problem: Text is a problem that did not end the connection (a
	// message skipped as too large, a warning, a failed attempt to
	// reconnect); Status is not set.
	Problem bool
	Status  Status // the new status, when not Problem
	Text    string // plain words: the reason for the status, or the problem
}

// Conn is a connection to one producer.
//
// Recv blocks until the next frame arrives, ctx is done, or the connection
// ends for good; it returns io.EOF when the producer ended the stream cleanly
// and will not be reconnected. Implementations reconnect by themselves where the
// binding allows it, so a transient loss is not an error of Recv. Only one
// goroutine may call Recv at a time.
//
// Send delivers one message (a reply, renegotiation or close) on the binding's
// back channel. It may be called concurrently with Recv, but only by one
// goroutine at a time. A nil error means "delivered", not "acted upon".
//
// Close releases the connection and makes a blocked Recv return. It may be
// called at any time, from any goroutine, more than once.
type Conn interface {
	Recv(ctx context.Context) (Frame, error)
	Send(ctx context.Context, msg []byte) error
	Close() error
}

// BatchReceiver is a Conn that can hand over at once every frame it has
// received and Recv has not returned: a flooded reader then takes a burst
// for the cost of one Recv, not one hand-off a frame.
//
// RecvBatch waits as Recv does for the first frame, then appends to dst
// every frame already waiting, oldest first, at most limit in all (a
// limit below 1 counts as 1),
// and returns the extended slice; the frames and their order are the ones
// the same number of Recv calls would have returned. It returns an error,
// Recv's, only when it appends no frame. The same goroutine rule as Recv's
// holds: only one goroutine may call Recv or RecvBatch at a time.
type BatchReceiver interface {
	RecvBatch(ctx context.Context, dst []Frame, limit int) ([]Frame, error)
}

// RecvBatch receives from c as BatchReceiver says: at once when c is one,
// else one frame by Recv.
func RecvBatch(ctx context.Context, c Conn, dst []Frame, limit int) ([]Frame, error) {
	if b, ok := c.(BatchReceiver); ok {
		return b.RecvBatch(ctx, dst, limit)
	}
	f, err := c.Recv(ctx)
	if err != nil {
		return dst, err
	}
	return append(dst, f), nil
}

// Status is the state of a connection, reported to the user on every change.
type Status int

// Connection states.
const (
	StatusConnecting Status = iota
	StatusConnected
	StatusReconnecting
	StatusClosed
)

func (s Status) String() string {
	switch s {
	case StatusConnecting:
		return "connecting"
	case StatusConnected:
		return "connected"
	case StatusReconnecting:
		return "reconnecting"
	case StatusClosed:
		return "closed"
	}
	return "unknown"
}

// StatusFunc is told about every status change; err says why, when there is a
// reason. It is called from the connection's own goroutine and must not block.
type StatusFunc func(s Status, detail string)

// EndReason says why a connection ended for good, for programs; the words
// of its StatusClosed report say it for people.
type EndReason int

// Reasons a connection ends.
const (
	// EndFailed: the connection was lost and could not be restored (an
	// error, a refusal, reconnecting given up), or the reason is unknown.
	EndFailed EndReason = iota
	// EndNormal: the producer ended the stream or the subscription on
	// purpose (an SSE 204, a normal close, the end of a file or process).
	EndNormal
	// EndClosed: this side ended it (Close, or a subscription.close sent).
	EndClosed
	// EndRejected: the producer refused the subscription or its renewal.
	EndRejected
)

func (r EndReason) String() string {
	switch r {
	case EndNormal:
		return "normal"
	case EndClosed:
		return "closed"
	case EndRejected:
		return "rejected"
	}
	return "failed"
}

// Ender is a Conn that tells why it ended. Every Conn of this package is
// one. EndReason is valid once Recv has returned the connection's final
// error (io.EOF, ErrClosed or another); before that it says EndFailed.
type Ender interface {
	EndReason() EndReason
}

// EndReasonOf returns why c ended, once Recv has returned its final error:
// c's own reason when it is an Ender; otherwise EndNormal when err is
// io.EOF, EndClosed when it is ErrClosed, and EndFailed for anything else.
func EndReasonOf(c Conn, err error) EndReason {
	if e, ok := c.(Ender); ok {
		return e.EndReason()
	}
	return reasonOf(err)
}

// reasonOf is the reason a final error gives by itself.
func reasonOf(err error) EndReason {
	switch {
	case errors.Is(err, io.EOF):
		return EndNormal
	case errors.Is(err, ErrClosed):
		return EndClosed
	}
	return EndFailed
}

// Answerer is a Conn whose back channel may bring the producer's answer to
// a message back on the same exchange, as HTTP does with the answer to a
// subscription.renegotiate (the body of the POST). The SSE Conn is one.
type Answerer interface {
	// SendAnswered sends msg as Send does. When the producer answered a
	// subscription.renegotiate on the same exchange, the answer (a
	// subscription.accepted or subscription.rejected) is returned, and
	// not passed to Recv: the caller takes it in turn, at the moment it
	// came. Otherwise answer is nil, and any answer comes through Recv.
	SendAnswered(ctx context.Context, msg []byte) (answer []byte, err error)
}
