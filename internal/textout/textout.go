// Package textout is the printer every command and text report writes
// through: its format strings are ours and pass as they are, and every
// argument is sanitized as one line (protocol.Line), so text from a
// producer, a capture file, an HTTP answer or a child process can neither
// reach a terminal with an escape sequence nor start a line of its own.
package textout

import (
	"fmt"
	"io"

	"github.com/aaep-term/aaep-term/protocol"
)

// Fprintf is fmt.Fprintf with every argument passed through [Safe].
func Fprintf(w io.Writer, format string, a ...any) (int, error) {
	return fmt.Fprintf(w, format, Safe(a)...)
}

// Safe returns a with every argument that is not a number or a boolean
// formatted and sanitized as one line.
func Safe(a []any) []any {
	out := make([]any, len(a))
	for i, v := range a {
		switch v := v.(type) {
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, bool:
			out[i] = v
		case string:
			out[i] = protocol.Line(v)
		case error:
			out[i] = protocol.Line(v.Error())
		case fmt.Stringer:
			out[i] = protocol.Line(v.String())
		case []byte:
			out[i] = protocol.Line(string(v))
		default:
			out[i] = protocol.Line(fmt.Sprint(v))
		}
	}
	return out
}
