package protocol

// Text is a string written by a producer. Its String method returns it
// sanitized for a terminal or braille line (see [Sanitize]); the unsanitized
// bytes need the explicit, greppable call [Text.Unsafe].
type Text string

// String returns the text with control and bidi-override characters neutralized.
func (t Text) String() string { return Sanitize(string(t)) }

// Unsafe returns the text exactly as the producer sent it. Use it only for
// machine outputs such as captures and JSON records.
func (t Text) Unsafe() string { return string(t) }
