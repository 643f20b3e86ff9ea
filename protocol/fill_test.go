package protocol

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestCopyMemberCoversPopulate: copyMember sets exactly the fields populate
// fills from a member (fillFromTemplate copies a member's fields by it,
// and clears them by it): for every member and values of every kind, an
// event without the member, given the fields of one with it, is that
// event.
func TestCopyMemberCoversPopulate(t *testing.T) {
	s := schemas(t)
	values := []string{
		`"x"`, `"2026-01-02T03:04:05.5Z"`, `"a\"b"`, `7`, `-1.5`, `true`, `false`, `null`, `["a","b"]`,
		`{"agent_id":"a","agent_name":"n","agent_version":"1","model":"m","manifest_uri":"u"}`,
		`{"primary_language":"en","text_direction":"ltr","available_languages":["en"],"fallback_chain":["en"],"script":"Latn","calendar":"g"}`,
		`{"percent":5,"step":1,"total_steps":2,"description":"d"}`,
		`[{"value":"v","label":"l"}]`, `{"x_a":{"b":1}}`,
	}
	const base = `{"type":"aaep:agent.state.changed"}`
	without, _ := (&Decoder{Schemas: s}).Decode([]byte(base))
	if without == nil {
		t.Fatal("no event")
	}
	for f := range nField {
		if f == fType {
			continue
		}
		set := 0
		for _, v := range values {
			in := strings.TrimSuffix(base, "}") + fmt.Sprintf(`,%q:%s}`, fieldNames[f], v)
			with, _ := (&Decoder{Schemas: s}).Decode([]byte(in))
			if with == nil {
				t.Fatalf("%s: no event", in)
			}
			got := *without
			copyMember(&got, with, f)
			got.Raw = with.Raw
			if !reflect.DeepEqual(&got, with) {
				t.Errorf("%s: copyMember gives\n%+v\nwant\n%+v", in, &got, with)
			}
			if !reflect.DeepEqual(with.Clone(), without.Clone()) {
				set++
			}
		}
		if set == 0 && f != fVerbosity {
			t.Errorf("%s: no value sets a field", fieldNames[f])
		}
	}
}

// TestTemplateFillFresh holds the fields of a message taken from a
// template to a fresh decoder's where the template's event cannot give
// them: a value patched into the template (a number or time copied into
// its event, a string filled afresh from then on), and a member scanned
// whose new value fills fewer fields than the template's (a producer
// without its name, a timestamp that is not a string). Half of the events
// are decoded into a room from a buffer filled again with the next
// message; the others are compared after the later ones are decoded.
func TestTemplateFillFresh(t *testing.T) {
	r := strings.NewReplacer
	msgs := []string{
		typical,
		// Patched: the event ID (a string), the sequence number and the
		// timestamp (scalars), of the same lengths.
		r(`evt_00000000000000a1`, `evt_00000000000000b2`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`).Replace(typical),
		// Those values not scanned now: the patched template's.
		r(`evt_00000000000000a1`, `evt_00000000000000b2`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`, `"call_17"`, `"call_18"`).Replace(typical),
		r(`evt_00000000000000a1`, `evt_00000000000000b2`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`, `"call_17"`, `"call_18"`, `"fetch_report"`, `"fetch_notes!"`).Replace(typical),
		// The producer without its name, the timestamp a number.
		r(`,"agent_name":"Research Assistant"`, ``).Replace(typical),
		r(`"2026-06-30T14:22:11.342Z"`, `123456789012345678901234`).Replace(typical),
		r(`"localization_hints":{"primary_language":"en-US","text_direction":"ltr"}`, `"localization_hints":{"primary_language":"en-US","available_languages":["en"]}`).Replace(typical),
		typical,
		r(`evt_00000000000000a1`, `evt_00000000000000b2`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`, `"call_17"`, `"call_18"`, `"fetch_report"`, `"fetch_notes!"`).Replace(typical),
	}
	d := Decoder{Schemas: schemas(t)}
	var room EventRoom
	buf := make([]byte, 0, 1024)
	same := func(i int, ev *Event) {
		t.Helper()
		want, _ := (&Decoder{Schemas: d.Schemas}).Decode([]byte(msgs[i]))
		if !reflect.DeepEqual(ev.Clone(), want.Clone()) {
			t.Errorf("event %d:\n%+v\na fresh decoder's:\n%+v", i, ev, want)
		}
	}
	got := make([]*Event, len(msgs))
	for i, m := range msgs {
		if i%2 == 1 {
			// Into a room, from a buffer filled again after: compared
			// now (its strings are the buffer's, or the template's).
			buf = append(buf[:0], m...)
			ev, _ := d.DecodeInto(buf, &room)
			same(i, ev)
			for k := range buf {
				buf[k] = '"'
			}
			continue
		}
		got[i], _ = d.Decode([]byte(m))
	}
	if d.templated < len(msgs)-3 {
		t.Fatalf("%d messages of %d taken from a template", d.templated, len(msgs)-1)
	}
	for i, ev := range got {
		if ev != nil || i%2 == 0 {
			same(i, ev) // after the later ones
		}
	}
}

// TestTemplateSpansAcross: the members validate reads across members (a
// confirmation's risk level, irreversibility and default decision: one
// that is irreversible and of high risk must default to reject) are read
// at their places in the message when they are not scanned and values
// before them changed length (spanned; fromTemplate no longer sets every
// member's span).
func TestTemplateSpansAcross(t *testing.T) {
	const conf = `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.awaiting.confirmation","event_id":"evt_3","session_id":"sess_1","timestamp":"2026-06-30T14:22:13Z","producer":{"agent_id":"a"},"urgency":"critical","action":"Delete the file.","consequence":"It is gone.","irreversible":false,"risk_level":"high","default_decision":"accept","timeout_seconds":30,"reply_token":"rpl_1","allowed_replies":["accept","reject"]}`
	r := strings.NewReplacer
	d := Decoder{Schemas: schemas(t)}
	for i, m := range []string{
		conf,
		r(`"evt_3"`, `"evt_4"`).Replace(conf),
		// Irreversible now, the risk level and default decision moved.
		r(`"evt_3"`, `"evt_35"`, `"irreversible":false`, `"irreversible":true`).Replace(conf),
		r(`"evt_3"`, `"evt_356"`, `"irreversible":false`, `"irreversible":true`, `"default_decision":"accept"`, `"default_decision":"reject"`).Replace(conf),
		r(`"evt_3"`, `"evt_3567"`, `"irreversible":false`, `"irreversible":true`, `"Delete the file."`, `"Delete it."`).Replace(conf),
		r(`"evt_3"`, `"evt_5"`).Replace(conf),
	} {
		took, err := agree(t, &d, []byte(m))
		if i > 0 && !took {
			t.Errorf("message %d not taken from the template", i)
		}
		if (err != nil) != (i == 2 || i == 4) {
			t.Errorf("message %d: %v", i, err)
		}
	}
}

// TestTemplateMadeAgainKept: a template made again after maxStale messages
// it could not be patched with (a producer changed each time) is made of
// the message's spans, every member's, though fromTemplate sets only
// those read (spanAll): with the spans of another type's message in
// between, it was dropped (and made again and again: a copy of the
// message each time, the check's allocations growing fivefold).
func TestTemplateMadeAgainKept(t *testing.T) {
	other := strings.NewReplacer(`"aaep:agent.tool.invoked"`, `"aaep:agent.state.changed"`, `"tool":"fetch_report","tool_call_id":"call_17","args_summary":"quarter: Q3, region: EMEA","risk_level":"low","irreversible":false,`, `"from_state":"thinking","to_state":"working",`).Replace(typical)
	d := Decoder{Schemas: schemas(t)}
	const n = 3 * maxStale
	for i := range n {
		// The producer of another length each time: the members after
		// it are elsewhere than in the template.
		a := strings.Replace(typical, `"research-assistant"`, fmt.Sprintf(`"research-assistant-%s"`, strings.Repeat("x", i%5)), 1)
		if _, err := agree(t, &d, []byte(a)); err != nil {
			t.Fatal(err)
		}
		if _, err := agree(t, &d, []byte(other)); err != nil {
			t.Fatal(err)
		}
	}
	if d.templated < 2*n-2 || d.dropped > 0 {
		t.Errorf("%d messages of %d taken from a template, %d templates dropped", d.templated, 2*n, d.dropped)
	}
}

// TestTemplatePatchedObjects: a template is patched with a message whose
// changed values kept their lengths, objects too (a flood's progress step
// changes every 64 events: its templates went stale, and were made again,
// a copy of the message each time, after every 16 messages of the 64), and
// what the next messages take from it is the patched values: a progress
// object copied into the template's event (its step, its percent, a
// description emptied), one with a description, a producer and the
// extensions filled afresh (from a buffer filled again after). A patch
// that nests deeper than PeekType reads is not kept (PeekedType would
// differ), nor one that does not keep t.depth.
func TestTemplatePatchedObjects(t *testing.T) {
	s := schemas(t)
	d := Decoder{Schemas: s}
	for i := range 1024 {
		if _, err := agree(t, &d, floodEvent(i)); err != nil {
			t.Fatalf("flood event %d: %v", i, err)
		}
	}
	if d.made > 1 || d.templated < 1023 {
		t.Errorf("flood: %d templates made, %d events of 1,024 from a template", d.made, d.templated)
	}

	r := strings.NewReplacer
	ext := strings.Replace(flood, `"summary_normal"`, `"extensions":{"x_a":{"b":1,"c":"de"}},"summary_normal"`, 1)
	id := func(n int) *strings.Replacer {
		return r(`"evt_8a00f8700000000000000002"`, fmt.Sprintf(`"evt_8a00f870%016x"`, n))
	}
	steps := func(n int, progress string) string {
		return id(n).Replace(r(`"progress":{"step":                   1}`, `"progress":`+progress).Replace(ext))
	}
	xyz := `{"description":"xyz","step":1}`
	msgs := []string{
		steps(0, `{"description":"abc","step":1}`), // the template's event has a description
		steps(1, `{"step":                12345}`), // patched: copied, the description emptied
		steps(2, `{"step":                12345}`), // not scanned: the patch's
		steps(3, `{"step":                12345}`),
		steps(4, `{"step":                    2}`),
		steps(5, `{"step":                    2}`),
		steps(6, `{"percent":  5, "step":     2}`), // other members: copied
		steps(7, `{"percent":  5, "step":     2}`),
		steps(8, xyz), // a description: filled afresh from now on
		steps(9, xyz),
		steps(10, xyz),
		r(`"aaep-term-flood"`, `"aaep-term-flop!"`).Replace(steps(11, xyz)), // the producer: afresh
		r(`"aaep-term-flood"`, `"aaep-term-flop!"`).Replace(steps(12, xyz)),
		r(`"aaep-term-flood"`, `"aaep-term-flop!"`).Replace(steps(13, xyz)),
		r(`"aaep-term-flood"`, `"aaep-term-flop!"`, `{"b":1,"c":"de"}`, `{"b":2,"c":"fg"}`).Replace(steps(14, xyz)), // the extensions' fill again
		r(`"aaep-term-flood"`, `"aaep-term-flop!"`, `{"b":1,"c":"de"}`, `{"b":2,"c":"fg"}`).Replace(steps(15, xyz)),
		r(`"aaep-term-flood"`, `"aaep-term-flop!"`, `{"b":1,"c":"de"}`, `{"b":2,"c":"fg"}`).Replace(steps(16, xyz)),
	}
	d = Decoder{Schemas: s}
	var room EventRoom
	buf := make([]byte, 0, 1024)
	var got []*Event
	for i, m := range msgs {
		var ev *Event
		var err error
		if i%2 == 1 {
			buf = append(buf[:0], m...)
			ev, err = d.DecodeInto(buf, &room)
		} else {
			ev, err = d.Decode([]byte(m))
		}
		want, errF := (&Decoder{Schemas: s}).Decode([]byte(m))
		if err != nil || errF != nil {
			t.Fatalf("message %d: %v, a fresh decoder: %v", i, err, errF)
		}
		if !reflect.DeepEqual(ev.Clone(), want.Clone()) {
			t.Errorf("message %d:\n%+v\na fresh decoder's:\n%+v", i, ev, want)
		}
		if i%2 == 1 {
			for k := range buf {
				buf[k] = '"'
			}
		} else {
			got = append(got, ev)
		}
	}
	if d.templated < len(msgs)-1 || d.made > 1 {
		t.Errorf("%d messages of %d from a template, %d templates made", d.templated, len(msgs), d.made)
	}
	for k, ev := range got {
		want, _ := (&Decoder{Schemas: s}).Decode([]byte(msgs[2*k]))
		if !reflect.DeepEqual(ev.Clone(), want.Clone()) {
			t.Errorf("message %d, after the later ones:\n%+v\na fresh decoder's:\n%+v", 2*k, ev, want)
		}
	}

	// Nesting: an extension's string, then arrays as long nested deeper
	// than peekDepth (allowed by these Limits), then the string again;
	// the extensions come first, so PeekType does not find the type in
	// the arrays' message (the template must know how deep it is).
	deep := func(v string) []byte {
		return []byte(`{"extensions":{"x_a":{"s":` + v + `}},` + flood[1:])
	}
	str, arrays := `"`+strings.Repeat("a", 2*peekDepth)+`"`, strings.Repeat("[", peekDepth+1)+strings.Repeat("]", peekDepth+1)
	d = Decoder{Schemas: s, Limits: Limits{MaxDepth: 4 * peekDepth, HardMaxDepth: 4 * peekDepth}}
	for i, m := range [][]byte{deep(str), deep(arrays), deep(arrays), deep(str), deep(str), deep(arrays)} {
		if _, err := agree(t, &d, m); err != nil {
			t.Fatalf("nesting, message %d: %v", i, err)
		}
		// The template is still the string's: PeekedType need not scan.
		if i == 3 && !d.plain {
			t.Errorf("nesting, message %d: PeekedType scans again", i)
		}
	}
}
