package subscriber

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// decoded is a frame with what decoding it found: a handshake or reply
// message, or an event and any problem with it.
type decoded struct {
	frame   transport.Frame
	message string // the type of a handshake or reply message; "" for an event
	answer  bool   // the answer to the subscription request (transport.EventHandshake)
	ev      *protocol.Event
	err     error
	note    *note // not a message: a note of the connection, or of the reader
}

// decode classifies and decodes one frame. What is an event is decided by
// the decoder (protocol.KindOf), exactly as aaep-replay check decides it.
// It touches nothing but dec, so it may run on the receiving goroutine.
func decode(dec *protocol.Decoder, f transport.Frame) decoded {
	var d decoded
	decodeInto(dec, &f, &d)
	return d
}

// decodeInto is decode writing into *d, which is zero: the receiving
// goroutine decodes every frame of a flood into the group it puts in the
// inbox, not into a value of some 150 bytes it then copies there.
func decodeInto(dec *protocol.Decoder, f *transport.Frame, d *decoded) {
	d.frame = *f
	d.answer = f.Event == transport.EventHandshake
	ev, err := dec.Decode(f.Data)
	if err != nil {
		if ne := notEvent(err); ne != nil {
			d.message = ne.Type
			return
		}
	}
	if d.answer {
		// The answer to the subscription request is no event, whatever it holds.
		d.message = protocol.PeekType(f.Data)
		if ev != nil {
			d.message = ev.Type
		}
		return
	}
	d.ev, d.err = ev, err
}

// notEvent returns err's *protocol.NotEventError, or nil. Its target
// escapes to the heap (errors.As takes any), so decode calls it only on an
// error: a valid event costs no allocation here.
func notEvent(err error) *protocol.NotEventError {
	var ne *protocol.NotEventError
	if errors.As(err, &ne) {
		return ne
	}
	return nil
}

// handle feeds one decoded frame to the engine, or the handshake. A
// handshake or reply message, and the answer to the subscription request
// whatever it holds, is never announced as an event.
func (c *Client) handle(d *decoded) { c.handleAt(d, c.now()) }

// handleAt is handle with the client's clock read already: a burst reads
// it once for all its frames, every one of which had arrived by then.
func (c *Client) handleAt(d *decoded, now time.Time) {
	if d.answer {
		c.tapRequest(d.frame.At)
	}
	if c.cfg.Tap != nil {
		c.cfg.Tap(Received, d.frame.Data, d.frame.At)
	}
	switch {
	case d.message == protocol.TypeSubscriptionAccepted:
		c.accepted(d.frame.Data, now)
		return
	case d.message == protocol.TypeSubscriptionRejected:
		c.rejected(d.frame.Data)
		return
	case d.message == protocol.TypeSubscriptionClose:
		c.closedByProducer(d.frame.Data)
		return
	case d.message == protocol.TypeTaskRefused && !d.answer && c.honoredTasks():
		c.taskRefused(d.frame.Data, now)
		return
	case d.answer:
		what := "a message without a type"
		if d.message != "" {
			what = "a " + protocol.Sanitize(d.message) + " message"
		}
		c.diagnose(session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf(
			"The producer answered the subscription request with %s, not subscription.accepted or subscription.rejected; it is not an event, so it is not announced.", what)})
		return
	case d.message != "":
		c.diagnose(session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf(
			"The producer sent a %s message where events are expected; it is not an event, so it is not announced.", protocol.Sanitize(d.message))})
		return
	}
	if d.err != nil {
		c.diagnose(session.Diagnostic{At: now, Code: "invalid", Message: DecodeProblem(d.ev, d.err, len(d.frame.Data))})
	}
	if d.ev == nil {
		return
	}
	c.manifestEvent(d.ev) // a producer without a handshake: its manifest, once
	c.eng.Handle(d.ev, now)
	c.answerByGate(now)
}

// DecodeProblem puts a decoding failure in one sentence: ev and err are
// what protocol.Decoder.Decode returned for a message of size bytes.
func DecodeProblem(ev *protocol.Event, err error, size int) string {
	var ve *protocol.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Sprintf("Dropped a message of %d bytes that is not an AAEP event: %v.", size, err)
	}
	// An ID or a type that is blank once sanitized is left out: a sanitized
	// line has no two spaces in a row, so no "Event   ( )".
	what := "An event"
	if ev != nil {
		id, typ := strings.TrimSpace(protocol.Name(ev.EventID)), strings.TrimSpace(protocol.Name(ev.Type))
		if id != "" {
			what = "Event " + id
		}
		if typ != "" {
			what += " (" + typ + ")"
		}
	}
	var parts []string
	for i, p := range ve.Problems {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ve.Problems)-3))
			break
		}
		where := p.Pointer
		if where == "" {
			where = "the event"
		}
		parts = append(parts, protocol.Line(where+": "+p.Message))
	}
	verb := "is announced anyway"
	if ev == nil {
		verb = "was dropped"
	}
	// A member its type does not define breaks only our strict schema
	// (spec section 7.2 puts extension data in extensions); the published
	// one accepts it, so it is said as what it is.
	breaks := "breaks the AAEP schema"
	if !slices.ContainsFunc(ve.Problems, func(p protocol.Problem) bool { return p.Code != protocol.ProblemUndefinedMember }) {
		breaks = "carries a member its type does not define"
		if len(ve.Problems) > 1 {
			breaks = "carries members its type does not define"
		}
	}
	return fmt.Sprintf("%s %s and %s: %s.", what, breaks, verb, strings.Join(parts, "; "))
}
