package protocol

// Text is a string from outside the program: a producer, a capture file, an
// HTTP answer or a child process. Its String method returns it sanitized
// for a terminal, braille line, speech or a notification (see [Sanitize]);
// Line and Name give the single-line forms. The unsanitized bytes need the
// explicit, greppable call [Text.Unsafe].
type Text string

// String returns the text with control and bidi-override characters neutralized.
func (t Text) String() string { return Sanitize(string(t)) }

// Line returns the text sanitized for a single-line place (see [Line]).
func (t Text) Line() string { return Line(string(t)) }

// Name returns the text sanitized as an identifier or name (see [Name]).
func (t Text) Name() string { return Name(string(t)) }

// Unsafe returns the text exactly as the producer sent it. Use it only for
// machine outputs such as captures and JSON records.
func (t Text) Unsafe() string { return string(t) }
