package producer

// This file serves the producer over stdio JSON-RPC 2.0 (appendix B.6): the
// subscriber's requests on one stream, events and answers on another.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
)

// ServeStdio serves one subscriber speaking JSON-RPC 2.0, one message per
// line: its requests come from r, events (aaep.event notifications) and
// answers go to w. It returns when the subscription ends, r ends, ctx ends
// or the producer closes; an error only when r or w failed. Human-readable
// logs belong on standard error, never on w.
func (p *Producer) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sp := &stdioPeer{w: w, in: make(chan inbound), done: make(chan struct{}), logf: p.opts.Logf}
	go sp.read(ctx, r)
	go func() {
		select {
		case <-ctx.Done():
		case <-p.ctx.Done():
		}
		sp.end(protocol.CloseGoingAway, "stopped")
	}()
	p.serveFramed(ctx, sp, "stdio", "")
	sp.mu.Lock()
	defer sp.mu.Unlock()
	err := sp.werr
	if err == nil && !errors.Is(sp.rerr, io.EOF) {
		err = sp.rerr
	}
	if err != nil {
		return fmt.Errorf("producer: stdio: %w", err)
	}
	return nil
}

// stdioPeer is a subscriber on a pair of streams.
type stdioPeer struct {
	w    io.Writer
	in   chan inbound
	done chan struct{} // closed by end
	once sync.Once
	logf func(string, ...any)

	mu   sync.Mutex // one writer at a time; guards the fields below
	buf  []byte
	werr error // the first write failure
	rerr error // why reading ended
}

// read parses the subscriber's messages and hands requests to next; it
// answers malformed ones itself.
func (s *stdioPeer) read(ctx context.Context, r io.Reader) {
	rd := wire.NewReader(r, wire.FramingLines, maxBody)
	for {
		b, err := rd.Next()
		var tl *wire.TooLargeError
		switch {
		case errors.As(err, &tl):
			s.logf("producer: stdio: %v", err)
			s.write(wire.Fail(nil, wire.CodeInvalidRequest, "message too large", nil))
			continue
		case err != nil:
			s.mu.Lock()
			s.rerr = err
			s.mu.Unlock()
			s.end(protocol.CloseGoingAway, "input ended")
			return
		}
		m, err := wire.Parse(b)
		if err != nil {
			s.logf("producer: stdio: %v", err)
			s.write(wire.Fail(nil, wire.CodeParseError, err.Error(), nil))
			continue
		}
		switch m.Method {
		case wire.MethodSubscribe, wire.MethodRenegotiate, wire.MethodReply, wire.MethodClose, wire.MethodPing:
		case "":
			continue // a response: the producer asks nothing
		default:
			if m.IsRequest() {
				s.write(wire.Fail(m.ID, wire.CodeMethodNotFound, "no method "+m.Method, nil))
			}
			continue
		}
		select {
		case s.in <- inbound{data: m.Params, id: m.ID, method: m.Method}:
		case <-s.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (s *stdioPeer) next() (inbound, error) {
	select {
	case in := <-s.in:
		return in, nil
	case <-s.done:
		return inbound{}, io.EOF
	}
}

func (s *stdioPeer) send(msg []byte) error {
	return s.write(wire.Request(nil, wire.MethodEvent, msg))
}

func (s *stdioPeer) answer(in inbound, msg []byte, refused bool) error {
	if in.id == nil {
		return nil // a notification gets no answer
	}
	if refused {
		return s.write(wire.Fail(in.id, wire.CodeRejected, "refused", msg))
	}
	return s.write(wire.Result(in.id, msg))
}

func (s *stdioPeer) end(code int, reason string) {
	s.once.Do(func() {
		s.logf("producer: stdio: the connection ends (%d %s)", code, reason)
		close(s.done)
	})
}

func (s *stdioPeer) write(line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	s.buf, _ = wire.Append(s.buf[:0], wire.FramingLines, line) // JSON-RPC encodes on one line
	if _, err := s.w.Write(s.buf); err != nil {
		s.werr = err
	}
	return s.werr
}
