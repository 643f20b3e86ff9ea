// into.go: decoding into an event used again, for readers that keep no event.

package protocol

import "slices"

// EventRoom is room for one event, which [Decoder.DecodeInto] fills again
// and again: decoding into it allocates nothing for the event (1.4 KB an
// event that Decode allocates, and the collector then marks and sweeps).
// Its zero value is ready to use. An EventRoom must not be copied once
// used: its event points into it.
type EventRoom struct{ box eventBox }

// DecodeInto decodes b as [Decoder.Decode] does, into room instead of a
// new event: the event it returns is room's, with nothing left of the
// event decoded into room before (every member is set again), and it is
// overwritten by the next DecodeInto into room. Its strings share b's
// memory (or the Decoder's own copy of the same bytes), as Decode's do,
// and stay valid while b is not modified; what a
// caller keeps of the event itself after the next DecodeInto into room
// must be a [Event.Clone].
func (d *Decoder) DecodeInto(b []byte, room *EventRoom) (*Event, error) {
	d.into = &room.box
	ev, err := d.Decode(b)
	d.into = nil // when Decode returned before taking it
	return ev, err
}

// newBox returns the eventBox Decode fills for the message b: DecodeInto's
// room, emptied, or a new one.
func (d *Decoder) newBox(b []byte, undoTwice bool) *eventBox {
	box := d.into
	if box == nil {
		return &eventBox{Event: Event{Raw: b, undoTwice: undoTwice}}
	}
	d.into = nil
	*box = eventBox{Event: Event{Raw: b, undoTwice: undoTwice}}
	return box
}

// Clone returns a copy of e that shares nothing with it that a decoder
// may use again: only its strings and Raw, which share the bytes it was
// decoded from. A reader keeps a Clone of an event decoded into an
// [EventRoom].
func (e *Event) Clone() *Event {
	box := &eventBox{Event: *e}
	c := &box.Event
	if len(e.Context) == 1 {
		box.context[0] = e.Context[0]
		c.Context = box.context[:]
	} else {
		c.Context = slices.Clone(e.Context)
	}
	if e.Extensions != nil {
		c.Extensions = append(box.ext[:0], e.Extensions...)
	}
	if e.Recoverable != nil {
		box.recoverable = *e.Recoverable
		c.Recoverable = &box.recoverable
	}
	if e.Irreversible != nil {
		box.irreversible = *e.Irreversible
		c.Irreversible = &box.irreversible
	}
	c.Localization.AvailableLanguages = slices.Clone(e.Localization.AvailableLanguages)
	c.Localization.FallbackChain = slices.Clone(e.Localization.FallbackChain)
	c.ToolsAvailable = slices.Clone(e.ToolsAvailable)
	c.AllowedReplies = slices.Clone(e.AllowedReplies)
	c.AcceptedResponseKinds = slices.Clone(e.AcceptedResponseKinds)
	c.Choices = slices.Clone(e.Choices)
	return c
}
