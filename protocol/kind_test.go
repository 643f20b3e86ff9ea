package protocol

import (
	"errors"
	"testing"
	"time"
)

// The decoder and the full validator choose a message's schema by one
// mapping: a handshake or reply message is never decoded as an event, and
// is judged by its own schema; so is a message of the agent-tasks
// extension (a task sent, or refused, is no event).
func TestMessageKinds(t *testing.T) {
	s := schemas(t)
	at := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	d := Decoder{Schemas: s}
	for _, tt := range []struct {
		msg   string
		kind  Kind
		valid bool // by Schemas.Check
	}{
		{`{"type":"subscription.close","subscription_id":"sub_1","reason_code":"shutdown","reason_message":"Bye."}`, KindHandshake, true},
		{`{"type":"subscription.close"}`, KindHandshake, false},
		{`{"type":"subscription.accepted"}`, KindHandshake, false},
		{`{"type":"subscription.rejected","reason_code":"rate_limit","reason_message":"Later."}`, KindHandshake, true},
		{`{"type":"subscription.renegotiate"}`, KindHandshake, false},
		{`{"type":"subscription.request"}`, KindHandshake, false},
		{`{"type":"confirmation.reply","reply_token":"rpl_1","decision":"accept","subscription_id":"sub_1","timestamp":"2026-06-30T14:22:11Z"}`, KindReply, true},
		{`{"type":"clarification.reply"}`, KindReply, false},
		{string(TaskMessage(TypeTask, "sub_1", "fix the test", at)), KindTask, true},
		{string(TaskMessage(TypeTaskCancel, "sub_1", "", at)), KindTask, true},
		{string(TaskRefusedMessage(TypeTask, "The agent is busy.", "sub_1", at)), KindTask, true},
		{string(TaskRefusedMessage(TypeTaskCancel, "No task.", "", at)), KindTask, true},
		{`{"type":"agtask:task","timestamp":"2026-06-30T14:22:11Z"}`, KindTask, false},
		{`{"type":"agtask:refused","refused":"agtask:other","reason":"x","timestamp":"2026-06-30T14:22:11Z"}`, KindTask, false},
		{`{"type":"agtask:other"}`, KindEvent, false},
		{typical, KindEvent, true},
		{`{"type":"medai:x"}`, KindEvent, false},
		{`{"type":"subscription.other"}`, KindEvent, false},
		{`{}`, KindEvent, false},
	} {
		typ := PeekType([]byte(tt.msg))
		if got := KindOf(typ); got != tt.kind {
			t.Errorf("KindOf(%q) = %v, want %v", typ, got, tt.kind)
		}
		if got := s.Check([]byte(tt.msg)) == nil; got != tt.valid {
			t.Errorf("Check(%s) valid = %v, want %v", tt.msg, got, tt.valid)
		}
		ev, err := d.Decode([]byte(tt.msg))
		var ne *NotEventError
		if tt.kind == KindEvent {
			if ev == nil || errors.As(err, &ne) {
				t.Errorf("Decode(%s) = %v, %v; want an event", tt.msg, ev, err)
			}
			continue
		}
		if ev != nil || !errors.As(err, &ne) || ne.Type != typ || ne.Kind != tt.kind {
			t.Errorf("Decode(%s) = %v, %v; want no event and a NotEventError", tt.msg, ev, err)
		}
	}
}
