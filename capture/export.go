// export.go: a capture written again as plain event JSONL.

package capture

import (
	"errors"
	"io"
	"time"
)

// ExportJSONL writes the received events of r to w as plain JSON lines,
// the format other AAEP tools read: no header and no times, and none of
// what the capture holds beside the events (messages sent, the handshake,
// replies, notes, lines that are not JSON). Exporting an export again
// writes it unchanged.
func ExportJSONL(r *Reader, w io.Writer) error {
	cw, err := NewWriter(w, Header{}, time.Time{}, WriterOptions{JSONL: true})
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Note || rec.IsText() || rec.Dir != In {
			continue
		}
		if err := cw.Write(In, rec.Msg, time.Time{}); err != nil {
			return err
		}
	}
}
