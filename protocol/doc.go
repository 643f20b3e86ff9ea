// Package protocol owns the AAEP v1.0.0 wire model: events, handshake and reply
// messages, their embedded JSON Schemas, validation, type normalization and text sanitizing.
//
// Decoding is split in two paths. [Decoder.Decode] is a hand-written single-pass
// decoder that checks every rule of our schemas while it builds an [Event]; when it
// finds a problem it re-runs the generic JSON Schema validator to report every
// problem with its JSON pointer. Tests keep the two paths in agreement. Both
// choose a message's schema through [KindOf], so a handshake or reply message
// is never judged, or decoded, as an event.
//
// Text that a producer wrote reaches people through [Text], whose String method
// removes terminal control sequences and neutralizes bidirectional overrides.
package protocol
