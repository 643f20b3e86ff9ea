package line

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/session"
)

// JSON writes one JSON object per line for every announcement and diagnostic
// (--json). Records are for programs: text is sanitized, the event is raw.
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
	r := announcementRecord{Record: "announcement", Time: a.At, Priority: a.Priority.String(), Kind: a.Kind,
		Agent: a.Agent, SessionID: a.SessionID, Text: a.Text, Lang: a.Lang, RTL: a.RTL}
	if a.Prompt != nil {
		r.Prompt = a.Prompt.Number
	}
	if ev := a.Event; ev != nil {
		r.EventID, r.Type = ev.EventID, ev.Type
		if a.Kind != "output" && json.Valid(ev.Raw) {
			r.Event = ev.Raw
		}
	}
	if json.Valid(a.Reply) {
		r.Reply = a.Reply
	}
	if err := j.enc.Encode(r); err != nil {
		return fmt.Errorf("line: write JSON record: %w", err)
	}
	return nil
}

// Diagnostic writes a diagnostic record.
func (j *JSON) Diagnostic(d session.Diagnostic) error {
	r := diagnosticRecord{Record: "diagnostic", Time: d.At, Code: d.Code, SessionID: d.SessionID, EventID: d.EventID, Message: d.Message}
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
	}{"note", now, text}); err != nil {
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
