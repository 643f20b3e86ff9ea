package conform

// This file holds one subscription the producer tests hold open: its
// request, the producer's answer, and every frame it received, with the
// time, kept as evidence.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// seen is one frame a subscription received.
type seen struct {
	at   time.Time
	data []byte
	ev   *protocol.Event // nil when the frame is not a valid event
	typ  string          // the message's type as written
	err  error           // why the frame is not a valid event
	// bad is the event decoded as far as it could be when it is not
	// valid (err is a *protocol.ValidationError), else nil.
	bad  *protocol.Event
	hand bool // a handshake message (accepted, rejected)
}

// psub is one subscription to the producer tested, read by a goroutine of
// its own into frames.
type psub struct {
	name string
	req  protocol.SubscriptionRequest
	conn transport.Conn

	mu      sync.Mutex
	frames  []seen
	kept    int           // bytes of frames
	changed chan struct{} // closed and replaced on every new frame or the end
	ended   bool
	endErr  error
}

// request builds a subscription request with caps.
func request(name string, caps protocol.Capabilities) protocol.SubscriptionRequest {
	return protocol.SubscriptionRequest{
		Type:              protocol.TypeSubscriptionRequest,
		AAEPVersion:       protocol.Version,
		SubscriberID:      "aaep-conform-" + name,
		SubscriberName:    "aaep-conform",
		SubscriberVersion: protocol.Version,
		Capabilities:      caps,
	}
}

// dialSub subscribes to endpoint with req and starts reading.
func dialSub(ctx context.Context, ep transport.Endpoint, topts transport.Options, name string, req protocol.SubscriptionRequest) (*psub, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("conform: subscription %s: %w", name, err)
	}
	topts.SSE.SubscriptionRequest = body
	topts.WebSocket.SubscriptionRequest = body
	topts.Unix.SubscriptionRequest = body
	topts.Stdio.SubscriptionRequest = body
	topts.GRPC.SubscriptionRequest = body
	topts.SSE.MaxReconnects = -1
	conn, err := transport.DialEndpoint(ctx, ep, topts)
	if err != nil {
		return nil, fmt.Errorf("conform: subscription %s to %s: %w", name, ep, err)
	}
	s := &psub{name: name, req: req, conn: conn, changed: make(chan struct{})}
	go s.read(ctx)
	return s, nil
}

// maxFrames and maxKeptBytes bound what one subscription keeps: a producer
// that sends more is cut off, and the run judges what came before. A
// conforming run keeps a few hundred kilobytes.
const (
	maxFrames    = 100000
	maxKeptBytes = 32 << 20
)

// errTooMany ends a subscription that was sent more than maxFrames or
// maxKeptBytes.
var errTooMany = fmt.Errorf("conform: the producer sent more than %d messages or %d MiB to one subscription", maxFrames, maxKeptBytes>>20)

// read takes frames until the connection ends.
func (s *psub) read(ctx context.Context) {
	var dec protocol.Decoder
	for {
		f, err := s.conn.Recv(ctx)
		s.mu.Lock()
		full := len(s.frames) >= maxFrames || s.kept >= maxKeptBytes
		s.mu.Unlock()
		if err == nil && full {
			err = errTooMany
			_ = s.conn.Close()
		}
		if err != nil {
			s.mu.Lock()
			s.ended, s.endErr = true, err
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
			return
		}
		at := f.At
		if at.IsZero() {
			at = time.Now()
		}
		sn := seen{at: at, data: f.Data, typ: protocol.PeekType(f.Data)}
		switch {
		case f.Event == transport.EventHandshake || protocol.KindOf(sn.typ) != protocol.KindEvent:
			sn.hand = true
		default:
			ev, derr := dec.Decode(f.Data)
			if derr != nil && unsafeDefaultOnly(ev, derr) {
				derr = nil // a Level 2 rule: P2-safe-default judges it
			}
			if derr != nil {
				sn.err, sn.bad = derr, ev
			} else {
				sn.ev = ev
				sn.typ = ev.Type
			}
		}
		s.mu.Lock()
		s.frames = append(s.frames, sn)
		s.kept += len(sn.data)
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}
}

// unsafeDefaultOnly reports whether the one thing wrong with ev is the
// default_decision of an irreversible confirmation of medium or high risk,
// which our schema holds but which is a Level 2 rule (spec 6.4.1): the
// event is judged as valid at Level 1, and P2-safe-default fails it.
func unsafeDefaultOnly(ev *protocol.Event, err error) bool {
	var ve *protocol.ValidationError
	if ev == nil || ev.Type != protocol.TypeAwaitingConfirmation || !errors.As(err, &ve) || len(ve.Problems) == 0 {
		return false
	}
	for _, p := range ve.Problems {
		if p.Pointer != "/default_decision" {
			return false
		}
	}
	return unsafeDefault(ev)
}

// unsafeDefault reports whether e, a confirmation, breaks the MUST of spec
// 6.4.1: irreversible, of medium or high risk, and not defaulting to reject.
func unsafeDefault(e *protocol.Event) bool {
	return e.Irreversible != nil && *e.Irreversible && (e.RiskLevel == "medium" || e.RiskLevel == "high") && e.DefaultDecision != protocol.DecisionReject
}

// snapshot returns the frames so far and whether the connection ended.
func (s *psub) snapshot() ([]seen, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames[:len(s.frames):len(s.frames)], s.ended
}

// errTimedOut is returned by waitFor when its time ran out.
var errTimedOut = errors.New("conform: the producer did not do it in time")

// waitFor waits until cond holds for the frames received, the connection
// ends (cond is asked a last time), ctx is done or d has passed.
func (s *psub) waitFor(ctx context.Context, d time.Duration, cond func([]seen) bool) error {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		s.mu.Lock()
		frames, ended, ch := s.frames, s.ended, s.changed
		s.mu.Unlock()
		if cond(frames) {
			return nil
		}
		if ended {
			return fmt.Errorf("conform: subscription %s ended: %w", s.name, s.endErr)
		}
		select {
		case <-ch:
		case <-t.C:
			return errTimedOut
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// answer returns the producer's answer to the subscription request, waiting
// at most d for it.
func (s *psub) answer(ctx context.Context, d time.Duration) (seen, bool) {
	var got seen
	ok := false
	_ = s.waitFor(ctx, d, func(fs []seen) bool {
		for _, f := range fs {
			if f.hand && (f.typ == protocol.TypeSubscriptionAccepted || f.typ == protocol.TypeSubscriptionRejected) {
				got, ok = f, true
				return true
			}
		}
		return len(fs) > 0 // a producer without a handshake starts with events
	})
	return got, ok
}

// accepted decodes the producer's acceptance, or nil.
func (s *psub) accepted(ctx context.Context) (*protocol.SubscriptionAccepted, seen) {
	f, ok := s.answer(ctx, handshakeWait)
	if !ok || f.typ != protocol.TypeSubscriptionAccepted {
		return nil, f
	}
	var a protocol.SubscriptionAccepted
	if json.Unmarshal(f.data, &a) != nil {
		return nil, f
	}
	return &a, f
}

// events returns the valid events received.
func events(fs []seen) []seen {
	var out []seen
	for _, f := range fs {
		if f.ev != nil {
			out = append(out, f)
		}
	}
	return out
}

// send writes msg on the back channel. When the producer answers on the
// same exchange (HTTP), the answer is recorded as a frame.
func (s *psub) send(ctx context.Context, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if a, ok := s.conn.(transport.Answerer); ok {
		ans, err := a.SendAnswered(ctx, b)
		if ans != nil {
			s.mu.Lock()
			s.frames = append(s.frames, seen{at: time.Now(), data: ans, typ: protocol.PeekType(ans), hand: true})
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
		}
		return err
	}
	return s.conn.Send(ctx, b)
}

// subscriptionID is the id the producer gave, when it gave one.
func (s *psub) subscriptionID() string {
	fs, _ := s.snapshot()
	for _, f := range fs {
		if f.hand && f.typ == protocol.TypeSubscriptionAccepted {
			var a protocol.SubscriptionAccepted
			if json.Unmarshal(f.data, &a) == nil {
				return a.SubscriptionID
			}
		}
	}
	return ""
}

// close sends subscription.close (when the producer gave a subscription)
// and closes the connection.
func (s *psub) close(ctx context.Context) {
	if id := s.subscriptionID(); id != "" {
		_ = s.send(ctx, protocol.SubscriptionClose{Type: protocol.TypeSubscriptionClose, SubscriptionID: id})
	}
	_ = s.conn.Close()
}
