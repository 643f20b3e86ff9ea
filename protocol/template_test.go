package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/capturetest"
)

// agree decodes in with d and with a fresh decoder of the same Schemas
// and Limits, and fails unless both give the same event, error and
// PeekedType. It reports whether d took in from a template.
func agree(t *testing.T, d *Decoder, in []byte) (templated bool, err error) {
	t.Helper()
	before := d.templated
	buf := append([]byte(nil), in...)
	ev, err := d.Decode(buf)
	fresh := Decoder{Schemas: d.Schemas, Limits: d.Limits}
	ef, errF := fresh.Decode(in)
	if !sameError(err, errF) {
		t.Fatalf("%s\nwith templates: %v\na fresh decoder: %v", in, err, errF)
	}
	if !reflect.DeepEqual(ev, ef) {
		t.Fatalf("%s\nwith templates:\n%+v\na fresh decoder:\n%+v", in, ev, ef)
	}
	if p, pf := d.PeekedType(buf, ev), fresh.PeekedType(in, ef); p != pf {
		t.Fatalf("%s\nPeekedType %q, a fresh decoder's %q", in, p, pf)
	}
	return d.templated > before, err
}

// TestTemplateTaken: the streams of the check and of the listener's flood
// are decoded from templates, nearly every event, as a fresh decoder
// decodes them (the path cannot silently never run).
func TestTemplateTaken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		event func(int) []byte
	}{
		{"capture", func(i int) []byte { return capturetest.ToolEvent(40_000 + i) }},
		{"flood", floodEvent},
	} {
		d := Decoder{Schemas: schemas(t)}
		n := 0
		for i := range 200 {
			if took, err := agree(t, &d, tc.event(i)); err != nil {
				t.Fatalf("%s: event %d: %v", tc.name, i, err)
			} else if took {
				n++
			}
		}
		if n < 180 {
			t.Errorf("%s: %d events of 200 decoded from a template, want most", tc.name, n)
		}
	}
}

// TestTemplateChecksChanged: a value that differs from the template's is
// checked against its rule, as the member loop checks it, though the
// message is decoded from the template.
func TestTemplateChecksChanged(t *testing.T) {
	base := capturetest.ToolEvent(40_001)
	for _, tc := range []struct{ old, new string }{
		{`"session_id":"sess_1"`, `"session_id":"sess 1"`},
		{`"session_id":"sess_1"`, `"session_id":"sess_"`},
		{`"urgency":"normal"`, `"urgency":"nearly"`},
		{`"urgency":"normal"`, `"urgency":"critical"`}, // valid: the check passes
		{`"sequence_number":10000`, `"sequence_number":-1`},
		{`"sequence_number":10000`, `"sequence_number":"1"`},
		{`"sequence_number":10000`, `"sequence_number":1.5`},
		{`"sequence_number":10000`, `"sequence_number":1e3`}, // unsure: the schema validator
		{`"timestamp":"2026-06-30T14:22:50.001Z"`, `"timestamp":"2026-06-31T14:22:50.001Z"`},
		{`"timestamp":"2026-06-30T14:22:50.001Z"`, `"timestamp":"2026-06-30T14:22:60.001Z"`},
		{`"tool_call_id":"call_10000"`, `"tool_call_id":""`},
		{`"tool":"fetch"`, `"tool":7`},
		{`"event_id":"evt_00009c41"`, `"event_id":"evt_0000-c41"`},
		{`"producer":{"agent_id":"research-assistant",`, `"producer":{"agent_id":"",`},
		{`"producer":{"agent_id":"research-assistant",`, `"producer":{"agent_ix":"research-assistant",`},
		{`"extensions":{"x_bench":{"note":"ppp`, `"extensions":{"bench":{"note":"ppp`},
		{`"extensions":{"x_bench":{"note":"ppp`, `"extensions":{"x_bench":{"note":"\u0070pp`},
		{`"@context":"https://aaep-protocol.org/context/v1"`, `"@context":"https://aaep-protocol.org/context/v2"`},
		{`"summary_normal":"Fetching the report."`, `"summary_normal":""`},
	} {
		if !bytes.Contains(base, []byte(tc.old)) {
			t.Fatalf("%s is not in the event", tc.old)
		}
		d := Decoder{Schemas: schemas(t)}
		if _, err := agree(t, &d, base); err != nil {
			t.Fatal(err)
		}
		in := bytes.Replace(base, []byte(tc.old), []byte(tc.new), 1)
		took, err := agree(t, &d, in)
		if !took {
			t.Errorf("%s: not decoded from the template", tc.new)
		}
		var ve *ValidationError
		valid := tc.new == `"urgency":"critical"` || strings.Contains(tc.new, "1e3") || strings.Contains(tc.new, "bench") || strings.Contains(tc.new, `\u0070`)
		if valid != (err == nil) || !valid && !errors.As(err, &ve) {
			t.Errorf("%s: %v, want valid %v (or a ValidationError)", tc.new, err, valid)
		}
		// And the template still holds for the next event.
		if _, err := agree(t, &d, base); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTemplateHostile: messages that differ from the template where a
// producer could hide something (a name, a quote, an escape, a control
// or NUL byte, a value that ends early or late, a member more, the end,
// the type past its 64th byte) decode as a fresh decoder decodes them.
func TestTemplateHostile(t *testing.T) {
	base := string(capturetest.ToolEvent(40_001))
	ext := strings.Replace(base, `"type":"aaep:agent.tool.invoked"`, `"type":"x-vendor.example:`+strings.Repeat("a", 70)+`.done"`, 1)
	for _, tc := range []struct {
		name, base, in string
	}{
		{"a name", base, strings.Replace(base, `"tool_call_id"`, `"tool_call_ix"`, 1)},
		{"a name escaped", base, strings.Replace(base, `"tool_call_id"`, `"tool_call_\u0069d"`, 1)},
		{"an escape in a value", base, strings.Replace(base, `"sess_1"`, `"sess\u005f1"`, 1)},
		{"a bad escape", base, strings.Replace(base, `"sess_1"`, `"sess\x1"`, 1)},
		{"a control byte", base, strings.Replace(base, `"sess_1"`, "\"sess_\x01\"", 1)},
		{"a NUL byte", base, strings.Replace(base, `"sess_1"`, "\"sess_\x00\"", 1)},
		{"a NUL byte after", base, base + "\x00"},
		{"a quote ends a value early: a member repeated", base, strings.Replace(base, `"tool":"fetch"`, `"tool":"fetch","tool":"fetch"`, 1)},
		{"a value that swallows the next member", base, strings.Replace(base, `"tool":"fetch","tool_call_id":"call_10000"`, `"tool":"fetch\",\"tool_call_id\":\"call_10000"`, 1)},
		{"a value swallowing the next, as long", base, strings.Replace(base, `"tool":"fetch","tool_call_id":"call_10000"`, `"tool":"fe\",\"tool_call_id\":\"call_10000"`, 1)},
		{"a number turned into an object", base, strings.Replace(base, `"sequence_number":10000`, `"sequence_number":{"n":10000}`, 1)},
		{"a number turned into a string", base, strings.Replace(base, `"sequence_number":10000`, `"sequence_number":"10000"`, 1)},
		{"a number longer", base, strings.Replace(base, `"sequence_number":10000`, `"sequence_number":100001`, 1)},
		{"a number with a fraction", base, strings.Replace(base, `"sequence_number":10000`, `"sequence_number":10000.0`, 1)},
		{"a number then white space", base, strings.Replace(base, `"sequence_number":10000`, `"sequence_number":10000 `, 1)},
		{"white space before a value", base, strings.Replace(base, `"sequence_number":10000`, `"sequence_number": 10000`, 1)},
		{"white space between members", base, strings.Replace(base, `,"timestamp"`, ` ,"timestamp"`, 1)},
		{"a prefix", base, base[:len(base)-1]},
		{"a prefix in a value", base, base[:len(base)-10]},
		{"an extension", base, base + "}"},
		{"an extension by white space", base, base + " \n"},
		{"the last value longer", base, strings.Replace(base, `ppp"}}}`, `pppp"}}}`, 1)},
		{"the last value shorter", base, strings.Replace(base, `ppp"}}}`, `pp"}}}`, 1)},
		{"the last value ends late", base, strings.Replace(base, `ppp"}}}`, `ppp"}},"x":1}`, 1)},
		{"the type", base, strings.Replace(base, `"aaep:agent.tool.invoked"`, `"aaep:agent.tool.invokee"`, 1)},
		{"the type past 64 bytes", ext, strings.Replace(ext, `.done"`, `.dona"`, 1)},
		{"a type in full", base, strings.Replace(base, `"aaep:agent.tool.invoked"`, `"https://aaep-protocol.org/types/agent.tool.invoked"`, 1)},
		{"a member of another type", base, strings.Replace(base, `"tool":"fetch"`, `"to_state":"fetch"`, 1)},
		{"an object deeper", base, strings.Replace(base, `{"note":"`, `{"n":[[[[[[[[[[1]]]]]]]]]],"note":"`, 1)},
		{"empty", base, ""},
		{"another message", base, typical},
	} {
		d := Decoder{Schemas: schemas(t)}
		if _, err := agree(t, &d, []byte(tc.base)); err != nil {
			t.Fatalf("%s: the template: %v", tc.name, err)
		}
		if len(d.templates) == 0 || d.templates[0] == nil {
			t.Fatalf("%s: no template kept", tc.name)
		}
		for range 2 {
			agree(t, &d, []byte(tc.in))
			agree(t, &d, []byte(tc.base))
		}
	}
}

// TestTemplateLimits: a value from a template is held to the limits as a
// scanned one, the limits and Schemas changing between events drop the
// templates, and a message over a soft limit is reported with the
// figures the member loop finds.
func TestTemplateLimits(t *testing.T) {
	base := capturetest.ToolEvent(40_001)
	long := bytes.Replace(base, []byte(`"summary_normal":"Fetching the report."`), []byte(`"summary_normal":"Fetching the report in full."`), 1)
	deep := bytes.Replace(base, []byte(`{"note":"`), []byte(`{"n":[[[[[[[[[[1]]]]]]]]]],"note":"`), 1)
	d := Decoder{Schemas: schemas(t)}
	for _, lim := range []Limits{{}, {MaxString: 25}, {MaxString: 24}, {MaxString: 20}, {MaxDepth: 5}, {MaxDepth: 3}, {MaxFields: 12}, {MaxBytes: 585}, {MaxBytes: 584}, {HardMaxDepth: 12}, {HardMaxDepth: 4}} {
		d.Limits = lim
		for _, in := range [][]byte{base, long, base, deep, base, long, deep} {
			agree(t, &d, in)
		}
	}
	// Other Schemas: the template of the first is not taken.
	d = Decoder{Schemas: schemas(t)}
	agree(t, &d, base)
	other, err := NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	d.Schemas = other
	if took, _ := agree(t, &d, base); took {
		t.Error("a template of other Schemas taken")
	}
}

// TestTemplateOwnsItsBytes: the caller's buffer is its own again after
// DecodeInto (filled with the next message, at the same places), and
// the template is a copy of it; so is the last timestamp read
// (Decoder.stamp: it kept the message's, read again as the same
// timestamp when the next message had it at the same place).
func TestTemplateOwnsItsBytes(t *testing.T) {
	for _, noTemplates := range []bool{false, true} {
		ownsItsBytes(t, noTemplates)
	}
}

func ownsItsBytes(t *testing.T, noTemplates bool) {
	d := Decoder{Schemas: schemas(t), noTemplates: noTemplates}
	var room EventRoom
	buf := make([]byte, 0, 1024)
	for i := range 64 {
		in := capturetest.ToolEvent(40_000 + i)
		buf = append(buf[:0], in...)
		ev, err := d.DecodeInto(buf, &room)
		if err != nil {
			t.Fatal(err)
		}
		fresh := Decoder{Schemas: d.Schemas}
		ef, _ := fresh.Decode(in)
		if !reflect.DeepEqual(ev.Clone(), ef.Clone()) {
			t.Fatalf("event %d (no templates %v) differs from a fresh decoder's:\n%+v\n%+v", i, noTemplates, ev, ef)
		}
		for k := range buf {
			buf[k] = '"'
		}
	}
	if d.templated < 50 && !noTemplates {
		t.Errorf("%d events of 64 from a template", d.templated)
	}
}

// TestFirstDiff holds firstDiff (amd64's assembly) and firstDiffWords to a
// byte-by-byte comparison, a difference at every place of every length.
func TestFirstDiff(t *testing.T) {
	naive := func(a, b []byte) int {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				return i
			}
		}
		return min(len(a), len(b))
	}
	// Lengths past four 64-byte turns of the assembly and its 16-byte
	// turns and last 16 bytes; a second difference after the first; a
	// start that is not aligned.
	whole := bytes.Repeat([]byte("abcdefghijklmnopq"), 20)
	for n := range 300 {
		for _, off := range []int{0, 1, 7} {
			a := whole[off : off+n]
			for p := 0; p <= n; p++ {
				b := append([]byte(nil), a...)
				if p < n {
					b[p] ^= 0x80
					if q := p + 1 + p%37; q < n {
						b[q] ^= 0x01
					}
				}
				for _, bb := range [][]byte{b, append(b, 'x'), b[:p]} {
					want := naive(a, bb)
					if got := firstDiff(a, bb); got != want {
						t.Fatalf("firstDiff of %d bytes at %d, changed at %d: %d, want %d", n, off, p, got, want)
					}
					if got := firstDiffWords(a, bb); got != want {
						t.Fatalf("firstDiffWords of %d bytes at %d, changed at %d: %d, want %d", n, off, p, got, want)
					}
				}
			}
		}
	}
}

// TestTemplateFillFollowsEachMessage holds the fields a message taken from
// a template fills from the template's event (its producer, timestamp and
// sequence number when their bytes are the template's) to a fresh
// decoder's, each event compared again after the later ones are decoded:
// a string cut from the template's own bytes would change when a later
// message patches them (the producer's agent_id, in the third message), and
// a changed value must not keep the template's (the producer in the
// third, the timestamp and sequence number in the fourth).
func TestTemplateFillFollowsEachMessage(t *testing.T) {
	r := strings.NewReplacer
	msgs := []string{
		typical,
		r(`evt_00000000000000a1`, `evt_00000000000000a2`).Replace(typical),
		r(`evt_00000000000000a1`, `evt_00000000000000a3`, `"research-assistant"`, `"research-assistanx"`).Replace(typical),
		r(`evt_00000000000000a1`, `evt_00000000000000a4`, `"research-assistant"`, `"research-assistanx"`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`).Replace(typical),
		r(`evt_00000000000000a1`, `evt_00000000000000a5`, `"research-assistant"`, `"research-assistanx"`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`).Replace(typical),
		// The producer longer: the members after it shift.
		r(`evt_00000000000000a1`, `evt_00000000000000a6`, `"research-assistant"`, `"research-assistant-2"`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`).Replace(typical),
		r(`evt_00000000000000a1`, `evt_00000000000000a7`, `"research-assistant"`, `"research-assistant-2"`, `"sequence_number":3`, `"sequence_number":4`, `14:22:11.342Z`, `14:22:12.001Z`).Replace(typical),
	}
	// A producer changed is an object's value: the template is not
	// patched but made again after maxStale such messages, in its own
	// bytes, which the earlier events must not share.
	for i := range 2 * maxStale {
		msgs = append(msgs, r(`evt_00000000000000a1`, fmt.Sprintf("evt_000000000000%04d", i), `"research-assistant"`, `"research-assistanx"`).Replace(typical))
	}
	d := Decoder{Schemas: schemas(t)}
	var got []*Event
	for i, m := range msgs {
		ev, err := d.Decode([]byte(m))
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		got = append(got, ev)
	}
	if d.templated < len(msgs)-1 {
		t.Fatalf("%d messages of %d taken from a template", d.templated, len(msgs)-1)
	}
	for i, m := range msgs {
		fresh := Decoder{Schemas: d.Schemas}
		want, _ := fresh.Decode([]byte(m))
		if !reflect.DeepEqual(got[i].Clone(), want.Clone()) {
			t.Errorf("event %d, after the later ones:\n%+v\na fresh decoder's:\n%+v", i, got[i], want)
		}
	}
	if a := got[1].Producer.AgentID; a != "research-assistant" {
		t.Errorf("event 1's agent_id %q", a)
	}
	if a := got[2].Producer.AgentID; a != "research-assistanx" || got[len(got)-1].Producer.AgentID != a {
		t.Errorf("event 2's agent_id %q", a)
	}
	if s := got[3].Seq; s != 4 || got[3].Timestamp.Nanosecond() != 1_000_000 {
		t.Errorf("event 3's sequence number %d, timestamp %v", s, got[3].Timestamp)
	}
}

// TestTemplatesEvicted: events of more types than there are templates
// (so the oldest go and the others move up, templateFor finding them at
// other places), in runs of three, their event IDs changed, then in turn
// one by one, each decoded as a fresh decoder decodes it, and most of the
// runs taken from a template.
func TestTemplatesEvicted(t *testing.T) {
	var msgs []string
	for k := range nTemplates + 4 {
		msgs = append(msgs, strings.Replace(typical, `"aaep:agent.tool.invoked"`, fmt.Sprintf(`"acme:agent.custom.kind%02d"`, k), 1))
	}
	msgs = append(msgs, typical, capturetestEvent(40_000), string(floodEvent(1)))
	d := Decoder{Schemas: schemas(t)}
	n, i := 0, 0
	decode := func(m string) {
		t.Helper()
		i++
		in := strings.Replace(m, `"event_id":"evt_`, fmt.Sprintf(`"event_id":"evt_%04d`, i%10000), 1)
		if took, err := agree(t, &d, []byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		} else if took {
			n++
		}
	}
	for range 3 {
		for _, m := range msgs {
			for range 3 {
				decode(m)
			}
		}
		for _, m := range msgs {
			decode(m)
		}
	}
	if want := 3 * len(msgs) * 3 / 2; n < want {
		t.Errorf("%d events of %d taken from a template, want at least %d", n, i, want)
	}
}

// capturetestEvent is capturetest.ToolEvent(i) as a string.
func capturetestEvent(i int) string { return string(capturetest.ToolEvent(i)) }
