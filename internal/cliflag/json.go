package cliflag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aaep-term/aaep-term/line"
)

// WriteJSON writes v to w as the one JSON document a command's --json
// asks for, and a newline: every string in it sanitized as a line
// (line.CleanJSON, as every --json record of ours is), for whatever a
// producer, a capture or a receipt put in it; indented when indent is
// true, else on one line.
func WriteJSON(w io.Writer, v any, indent bool) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	var out bytes.Buffer
	if !indent {
		out.Write(line.CleanJSON(doc))
	} else if err := json.Indent(&out, line.CleanJSON(doc), "", "  "); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	out.WriteByte('\n')
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
