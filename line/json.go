package line

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// JSON writes one JSON object per line for every announcement and diagnostic
// (--json). Records are for programs, but programs show them to people:
// every string is sanitized as the plain lines are (identifiers as names,
// text as one line), and every string inside the event and the reply as
// one line (see CleanJSON), so no escape, C1, bidi or zero-width character
// survives, raw or as a JSON \u escape.
type JSON struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewJSON returns a JSON writer on w.
func NewJSON(w io.Writer) *JSON {
	bw := bufio.NewWriterSize(w, 64*1024)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &JSON{w: bw, enc: enc}
}

type announcementRecord struct {
	Record    string          `json:"record"` // "announcement"
	Time      time.Time       `json:"time"`
	Priority  string          `json:"priority"`
	Kind      string          `json:"kind"`
	Rule      string          `json:"rule,omitempty"` // a safety warning's rule code
	Agent     string          `json:"agent,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	EventID   string          `json:"event_id,omitempty"`
	Type      string          `json:"type,omitempty"`
	Text      string          `json:"text"`
	Lang      string          `json:"lang,omitempty"`
	RTL       bool            `json:"rtl,omitempty"`
	Prompt    int             `json:"prompt,omitempty"`
	Event     json.RawMessage `json:"event,omitempty"`
	Reply     json.RawMessage `json:"reply,omitempty"`
}

type diagnosticRecord struct {
	Record    string    `json:"record"` // "diagnostic"
	Time      time.Time `json:"time"`
	Code      string    `json:"code"`
	SessionID string    `json:"session_id,omitempty"`
	EventID   string    `json:"event_id,omitempty"`
	Message   string    `json:"message"`
}

// Announce writes an announcement record.
func (j *JSON) Announce(a announce.Announcement) error {
	r := announcementRecord{Record: "announcement", Time: a.At, Priority: a.Priority.String(), Kind: a.Kind, Rule: protocol.Name(a.Rule),
		Agent: protocol.Name(a.Agent), SessionID: protocol.Name(a.SessionID), Text: protocol.Line(a.Text),
		Lang: protocol.Name(a.Lang), RTL: a.RTL}
	if a.Prompt != nil {
		r.Prompt = a.Prompt.Number
	}
	if ev := a.Event; ev != nil {
		r.EventID, r.Type = protocol.Name(ev.EventID), protocol.Name(ev.Type)
		if a.Kind != "output" && json.Valid(ev.Raw) {
			r.Event = CleanJSON(ev.Raw)
		}
	}
	if json.Valid(a.Reply) {
		r.Reply = CleanJSON(a.Reply)
	}
	if err := j.enc.Encode(r); err != nil {
		return fmt.Errorf("line: write JSON record: %w", err)
	}
	return nil
}

// Diagnostic writes a diagnostic record.
func (j *JSON) Diagnostic(d session.Diagnostic) error {
	r := diagnosticRecord{Record: "diagnostic", Time: d.At, Code: protocol.Name(d.Code), SessionID: protocol.Name(d.SessionID),
		EventID: protocol.Name(d.EventID), Message: protocol.Line(d.Message)}
	if err := j.enc.Encode(r); err != nil {
		return fmt.Errorf("line: write JSON record: %w", err)
	}
	return nil
}

// Say writes a record of the listener's own.
func (j *JSON) Say(now time.Time, text string) error {
	if err := j.enc.Encode(struct {
		Record string    `json:"record"`
		Time   time.Time `json:"time"`
		Text   string    `json:"text"`
	}{"note", now, protocol.Line(text)}); err != nil {
		return fmt.Errorf("line: write JSON record: %w", err)
	}
	return j.Flush()
}

// Flush writes buffered records.
func (j *JSON) Flush() error {
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("line: flush: %w", err)
	}
	return nil
}

// CleanJSON returns the valid JSON document raw with every string, keys
// included, passed through protocol.Line, in the same order. A document
// whose strings need no change (no backslash escape, no two spaces in a
// row, and no DEL or byte outside ASCII that the sanitizer would change)
// is returned as is. Two keys of an object that are the same once
// sanitized ("a" and "a" with a DEL) are both kept, in the producer's
// order, so that neither value is hidden from whoever reads the line.
func CleanJSON(raw []byte) json.RawMessage {
	if !bytes.ContainsRune(raw, '\\') && !bytes.Contains(raw, []byte("  ")) &&
		(!hasDELOrNonASCII(raw) || protocol.Line(string(raw)) == string(raw)) {
		return raw
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b bytes.Buffer
	b.Grow(len(raw))
	// stack holds, per open object or array, whether the next token is the
	// first in it and, for objects, whether it is a key.
	type level struct{ object, first, key bool }
	var stack []level
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if n := len(stack); n > 0 {
			l := &stack[n-1]
			_, closing := tok.(json.Delim)
			closing = closing && (tok == json.Delim('}') || tok == json.Delim(']'))
			switch {
			case closing:
			case l.object && !l.key:
				b.WriteByte(':')
			case !l.first:
				b.WriteByte(',')
			}
			if !closing {
				l.first = false
				if l.object {
					l.key = !l.key
				}
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				b.WriteByte(byte(t))
				stack = append(stack, level{object: t == '{', first: true, key: true})
			default:
				b.WriteByte(byte(t))
				stack = stack[:len(stack)-1]
			}
		case string:
			s, _ := json.Marshal(protocol.Line(t))
			b.Write(s)
		case json.Number:
			b.WriteString(t.String())
		case bool:
			if t {
				b.WriteString("true")
			} else {
				b.WriteString("false")
			}
		case nil:
			b.WriteString("null")
		}
	}
	return b.Bytes()
}

// hasDELOrNonASCII reports a byte a JSON string may hold unescaped that
// the sanitizer may change. (Other controls must be escaped in JSON.)
func hasDELOrNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x7f {
			return true
		}
	}
	return false
}
