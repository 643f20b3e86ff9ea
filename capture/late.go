// late.go: the reader's checks that CheckAll makes after decoding.

package capture

import "github.com/aaep-term/aaep-term/protocol"

// lateChecks are the checks of a capture's records that the reader leaves
// to CheckAll (Reader.late), made in the records' order after decoding:
// whether a record's message is JSON, which the decoder's scan decides
// (otherwise every message was scanned twice: by the reader to validate
// it, then by the decoder), and whether its time goes back, which depends
// on which records before it were JSON. Their diagnostics take the places
// the reader would have given them (Reader.endLate).
type lateChecks struct {
	lastT   float64    // the latest time of the records admitted
	diags   []lateDiag // the first maxDiagnostics
	dropped int        // how many more
}

// lateDiag is a diagnostic and how many of the reader's came before it.
type lateDiag struct {
	at int
	d  Diagnostic
}

// admit makes the late checks of st's record; false means it is skipped,
// as the reader skips a line that is not a record.
func (l *lateChecks) admit(r *Reader, st *Step) bool {
	rec := &st.Record
	if !rec.late {
		return true
	}
	if st.notJSON {
		l.add(rec, r.notJSON(*rec))
		return false
	}
	if why := backInTime(rec, l.lastT); why != "" {
		l.add(rec, why)
	}
	l.lastT = max(l.lastT, rec.T)
	return true
}

// endLate ends CheckAll's reading: the diagnostics of the late checks l
// join the reader's where it would have made them, and the first
// maxDiagnostics of them all are kept.
func (r *Reader) endLate(l *lateChecks) {
	r.late, r.lastT = false, l.lastT
	if len(l.diags) == 0 {
		return
	}
	total := len(r.diags) + r.dropped + len(l.diags) + l.dropped
	all := make([]Diagnostic, 0, len(r.diags)+len(l.diags))
	k := 0 // the reader's diagnostics taken
	for _, ld := range l.diags {
		for k < len(r.diags) && k < ld.at {
			all = append(all, r.diags[k])
			k++
		}
		all = append(all, ld.d)
	}
	all = append(all, r.diags[k:]...)
	r.diags = all[:min(len(all), maxDiagnostics)]
	r.dropped = total - len(r.diags)
}

// add notes a diagnostic of rec, to come after the reader's first rec.diags.
func (l *lateChecks) add(rec *Record, msg string) {
	if len(l.diags) >= maxDiagnostics {
		l.dropped++
		return
	}
	l.diags = append(l.diags, lateDiag{at: rec.diags, d: Diagnostic{Line: rec.Line, Message: msg}})
}

// isJSON reports whether msg, which Decode returned err for, is JSON:
// any outcome but a syntax or limit error means the decoder's scan read
// it whole; a limit may stop the scan early (a message over a megabyte,
// nesting over 64 levels), and Valid decides then.
func isJSON(msg []byte, err error) bool {
	switch err.(type) {
	case *protocol.SyntaxError, *protocol.LimitError:
		return protocol.Valid(msg)
	}
	return true
}
