package protocol

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// intoMessages are events that set what another may leave unset: two
// contexts or one, extensions, recoverable and irreversible (which point
// into the event's room), lists, choices, a confirmation; and messages
// that are no events or not JSON.
func intoMessages(t testing.TB) [][]byte {
	t.Helper()
	msgs := [][]byte{
		[]byte(typical),
		[]byte(strings.Replace(typical, `"https://aaep-protocol.org/context/v1"`, `["https://aaep-protocol.org/context/v1","https://example.com/x"]`, 1)),
		[]byte(strings.Replace(typical, `"irreversible":false,`, `"extensions":{"x_a":{"n":1},"x_b":{"n":2}},`, 1)),
		[]byte(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.session.errored","event_id":"evt_2","session_id":"s","timestamp":"2026-06-30T14:22:12Z","producer":{"agent_id":"a"},"urgency":"critical","error_category":"tool","recoverable":true,"summary_normal":"It broke."}`),
		[]byte(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.awaiting.confirmation","event_id":"evt_3","session_id":"s","timestamp":"2026-06-30T14:22:13Z","producer":{"agent_id":"a"},"urgency":"critical","action":"Delete the file.","risk_level":"high","irreversible":true,"default_decision":"reject","timeout_seconds":30,"reply_token":"tok_1","allowed_replies":["accept","reject"]}`),
		[]byte(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.awaiting.clarification","event_id":"evt_4","session_id":"s","timestamp":"2026-06-30T14:22:14Z","producer":{"agent_id":"a"},"urgency":"critical","question":"Which one?","accepted_response_kinds":["choice"],"choices":[{"value":"a","label":"A"},{"value":"b","label":"B"}],"reply_token":"tok_2"}`),
		[]byte(`{"type":"subscription.close","subscription_id":"sub_1"}`),
		[]byte(`{"type":"aaep:agent.state.changed"`),
		[]byte(`{"type":"medai:x","urgency":"panic","x":1}`),
	}
	edge, err := os.ReadFile(filepath.Join("testdata", "edge-messages.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(edge), []byte("\n")) {
		msgs = append(msgs, line)
	}
	return msgs
}

// checkInto decodes a then b into one room, and a then b with Decode on a
// second decoder: b's events and errors must be the same (nothing of a is
// left in the room), and a Clone of a's event taken before b was decoded
// into the room must still be a's. Then a and b again into the room, each
// as a fresh decoder decodes it: the second a, or b, is often taken from
// the template the first made, into a room filled last from that
// template.
func checkInto(t *testing.T, s *Schemas, a, b []byte) {
	t.Helper()
	into, fresh := Decoder{Schemas: s}, Decoder{Schemas: s}
	var room EventRoom
	evA, errA := into.DecodeInto(a, &room)
	wantA, wantErrA := fresh.Decode(a)
	if !reflect.DeepEqual(evA, wantA) || !sameError(errA, wantErrA) {
		t.Fatalf("DecodeInto(%q) differs from Decode:\n%+v, %v\n%+v, %v", a, evA, errA, wantA, wantErrA)
	}
	var kept *Event
	if evA != nil {
		kept = evA.Clone()
	}
	evB, errB := into.DecodeInto(b, &room)
	wantB, wantErrB := fresh.Decode(b)
	if !reflect.DeepEqual(evB, wantB) || !sameError(errB, wantErrB) {
		t.Fatalf("DecodeInto(%q) after %q differs from Decode:\n%+v, %v\n%+v, %v", b, a, evB, errB, wantB, wantErrB)
	}
	if kept != nil && !reflect.DeepEqual(kept, wantA) {
		t.Fatalf("the Clone of %q changed when %q was decoded into the room:\n%+v\n%+v", a, b, kept, wantA)
	}
	if evB != nil && evB != &room.box.Event {
		t.Fatalf("DecodeInto(%q) did not decode into the room", b)
	}
	for _, m := range [][]byte{a, b, b, a} {
		ev, err := into.DecodeInto(m, &room)
		want, wantErr := (&Decoder{Schemas: s}).Decode(m)
		if !sameError(err, wantErr) || (ev == nil) != (want == nil) || ev != nil && !reflect.DeepEqual(ev.Clone(), want.Clone()) {
			t.Fatalf("DecodeInto(%q) again, after %q and %q, differs from a fresh decoder's:\n%+v, %v\n%+v, %v", m, a, b, ev, err, want, wantErr)
		}
	}
}

// sameError reports whether a and b are the same error, the schema
// validator's lists of names in any order: it names the members an object
// may not have in the order of a map ("additional properties '9C1', '$'").
func sameError(a, b error) bool {
	va, okA := a.(*ValidationError)
	vb, okB := b.(*ValidationError)
	if !okA || !okB {
		return reflect.DeepEqual(a, b)
	}
	if len(va.Problems) != len(vb.Problems) {
		return false
	}
	for i, p := range va.Problems {
		q := vb.Problems[i]
		if p.Pointer != q.Pointer || p.Code != q.Code || !slices.Equal(sortedBytes(p.Message), sortedBytes(q.Message)) {
			return false
		}
	}
	return true
}

// sortedBytes is s's bytes in order.
func sortedBytes(s string) []byte {
	b := []byte(s)
	slices.Sort(b)
	return b
}

// An event decoded into a room that held another is the event Decode
// makes, with nothing left of the one before, and a Clone taken before
// is not touched by the next event.
func TestDecodeIntoLeavesNothingBehind(t *testing.T) {
	s := schemas(t)
	msgs := intoMessages(t)
	for _, a := range msgs {
		for _, b := range msgs {
			checkInto(t, s, a, b)
		}
	}
}

// Decoding into a room allocates nothing for a valid event; Decode still
// allocates a new event once DecodeInto was used.
func TestDecodeIntoAllocations(t *testing.T) {
	d := Decoder{Schemas: schemas(t)}
	in := []byte(typical)
	var room EventRoom
	if _, err := d.DecodeInto(in, &room); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(200, func() {
		if _, err := d.DecodeInto(in, &room); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("decoding a valid event into a room allocates %v times, want 0", a)
	}
	ev, err := d.Decode(in)
	if err != nil || ev == &room.box.Event {
		t.Fatalf("Decode after DecodeInto: %v, into the room: %v", err, ev == &room.box.Event)
	}
}

// FuzzDecodeInto holds DecodeInto to Decode for any two messages decoded
// one after the other (checkInto).
func FuzzDecodeInto(f *testing.F) {
	msgs := intoMessages(f)
	for i, a := range msgs {
		f.Add(a, msgs[(i+3)%len(msgs)])
	}
	s, err := NewSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkInto(t, s, a, b)
	})
}

// TestRoomEmptied: a room holds nothing of its last event when the next
// message is taken from the same template (the last event's fields not
// set again: newBox empties the whole room): a producer's model, the
// hints' list, the extensions, a timestamp that was no string, a summary,
// each set by one message (its value scanned) and absent from the next
// (taken from the template's event); and a room whose template was made
// again meanwhile, of another message, by Decode. Nor does the room keep
// them in its own places.
func TestRoomEmptied(t *testing.T) {
	s := schemas(t)
	base := strings.Replace(typical, `"irreversible":false,`, `"irreversible":false,"extensions":{},`, 1)
	id := 0
	next := func(old, new string) []byte {
		id++
		m := strings.Replace(base, `"evt_00000000000000a1"`, fmt.Sprintf(`"evt_%016x"`, id), 1)
		return []byte(strings.Replace(m, old, new, 1))
	}
	d := Decoder{Schemas: s}
	var room EventRoom
	into := func(m []byte) {
		t.Helper()
		ev, err := d.DecodeInto(m, &room)
		want, wantErr := (&Decoder{Schemas: s}).Decode(m)
		if !sameError(err, wantErr) || !reflect.DeepEqual(ev.Clone(), want.Clone()) {
			t.Fatalf("%s\ninto a room: %v\n%+v\na fresh decoder: %v\n%+v", m, err, ev, wantErr, want)
		}
		// Nor in the room's own places (they would keep the last
		// message alive).
		if len(ev.Extensions) == 0 && (room.box.ext[0].Name != "" || room.box.ext[0].Data != nil) || len(ev.Context) != 1 && room.box.context[0] != "" {
			t.Fatalf("%s\nthe room keeps %q, %q", m, room.box.ext[0].Name, room.box.context[0])
		}
	}
	for _, c := range []struct{ old, new string }{
		{"", ""},
		{"", ""},
		{`"agent_version":"2.3.1"`, `"agent_version":"2.3.1","model":"m"`},
		{"", ""},
		{`"text_direction":"ltr"`, `"available_languages":["en"]`},
		{"", ""},
		{`"extensions":{}`, `"extensions":{"x_a":{}}`},
		{"", ""},
		{`"2026-06-30T14:22:11.342Z"`, `123456789012345678901234`},
		{"", ""},
		{`"summary_terse":"Fetching."`, `"summary_terse":"Fetching.","summary_detailed":"x"`},
		{"", ""},
	} {
		into(next(c.old, c.new))
	}
	if d.templated < 7 {
		t.Errorf("%d messages of 12 taken from a template", d.templated)
	}
	// The template made again by Decode, of a message without the
	// summary_terse the room's last event has: the room is emptied.
	d, room = Decoder{Schemas: s}, EventRoom{}
	without := func() []byte { return next(`"summary_terse":"Fetching.",`, ``) }
	into(next("", ""))
	into(next("", ""))
	made := d.made
	if _, err := d.Decode(without()); err != nil {
		t.Fatal(err)
	}
	into(without())
	into(without())
	if d.made != made+1 || d.templated < 3 {
		t.Errorf("templates made %d times, %d messages taken from one", d.made, d.templated)
	}
}
