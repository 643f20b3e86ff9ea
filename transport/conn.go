package transport

import (
	"context"
	"time"
)

// Frame is one message as it came off the wire, before decoding.
type Frame struct {
	Data  []byte    // the JSON text of one message; owned by the receiver
	ID    string    // SSE "id:" field, if any
	Event string    // SSE "event:" field, if any
	At    time.Time // when the frame was received
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
