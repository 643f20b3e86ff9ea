package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// Decoding a valid event is one allocation: the event (with room for its
// one @context). The strings it holds share the bytes given to Decode
// instead of a copy of them.
func TestDecodeAllocations(t *testing.T) {
	var d Decoder
	in := []byte(typical)
	if _, err := d.Decode(in); err != nil { // compiles the schemas
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(200, func() {
		if _, err := d.Decode(in); err != nil {
			t.Fatal(err)
		}
	}); a > 1 {
		t.Errorf("decoding a valid event allocates %v times, want 1", a)
	}
}

// NewSchemas compiles only the fast decoder's rules (about 3,400
// allocations); the schema validator's form (about 100,000 allocations,
// 45 ms) is compiled when an event first needs it, so a stream of valid
// events never compiles it. An invalid event is still explained.
func TestNewSchemasCompilesTheValidatorLate(t *testing.T) {
	if a := testing.AllocsPerRun(1, func() {
		if _, err := NewSchemas(); err != nil {
			t.Fatal(err)
		}
	}); a > 10_000 {
		t.Errorf("NewSchemas allocates %v times, want at most 10,000", a)
	}
	s := schemas(t)
	d := Decoder{Schemas: s}
	if _, err := d.Decode([]byte(typical)); err != nil {
		t.Fatal(err)
	}
	if s.full != nil {
		t.Error("decoding a valid event compiled the schema validator")
	}
	bad := strings.Replace(typical, `"risk_level":"low"`, `"risk_level":"lowish"`, 1)
	_, err := d.Decode([]byte(bad))
	if ve := asValidation(err); ve == nil || len(ve.Problems) == 0 || ve.Problems[0].Pointer != "/risk_level" {
		t.Errorf("an invalid risk level: %v", err)
	}
	if err := s.compiled().err; err != nil {
		t.Errorf("the schemas do not compile: %v", err)
	}
}

// The schema validator's form is compiled once, however many goroutines
// need it first at the same time (a checker's decoders share one Schemas).
func TestSchemasCompiledOnceConcurrently(t *testing.T) {
	s := schemas(t)
	bad := []byte(strings.Replace(typical, `"risk_level":"low"`, `"risk_level":"lowish"`, 1))
	errs := make(chan error)
	for range 4 {
		go func() { errs <- s.Check(bad) }()
	}
	for range 4 {
		if ve := asValidation(<-errs); ve == nil || len(ve.Problems) != 1 {
			t.Errorf("Check of an invalid risk level: %v", ve)
		}
	}
}

// A producer's words alone, as most announcements are, are split from
// their marks without a new text: only the one range is allocated.
func TestSplitTheirsAloneAllocations(t *testing.T) {
	marked := Theirs("Load test progress: 12 of 40.")
	if a := testing.AllocsPerRun(200, func() { _, _ = SplitTheirs(marked) }); a > 1 {
		t.Errorf("splitting one producer's words allocates %v times, want 1", a)
	}
}

// Peeking the type of an event allocates nothing for a core type in its
// compact form, and reads every form as before.
func TestPeekTypeAllocations(t *testing.T) {
	in := []byte(typical)
	if a := testing.AllocsPerRun(200, func() { _ = PeekType(in) }); a > 0 {
		t.Errorf("PeekType allocates %v times, want none", a)
	}
	for in, want := range map[string]string{
		typical: TypeToolInvoked,
		`{"type":"https://aaep-protocol.org/types/agent.tool.invoked"}`: TypeToolInvoked,
		`{"type":"aaep:agent.tool.invokedx"}`:                           "aaep:agent.tool.invokedx",
		`{"type":"x:y","type":"aaep:agent.tool.invoked"}`:               "x:y",
		`{"type":"aaep:agent.tool.invoke\u0064"}`:                       TypeToolInvoked,
		`{"a":1}`: "",
	} {
		if got := PeekType([]byte(in)); got != want {
			t.Errorf("PeekType(%s) = %q, want %q", in, got, want)
		}
	}
}

// An extension's name is a part of the event, not a copy, and the one
// extension most events carry is kept in the event's own room: decoding an
// event with one extension is one allocation (3 with a map before).
func TestExtensionNamesShareTheEvent(t *testing.T) {
	var d Decoder
	in := []byte(strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal","extensions":{"x_bench":{"note":"n"}}`, 1))
	if _, err := d.Decode(in); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(200, func() {
		if _, err := d.Decode(in); err != nil {
			t.Fatal(err)
		}
	}); a > 1 {
		t.Errorf("decoding an event with one extension allocates %v times, want 1 (the event)", a)
	}
}

// Every extension is kept, in the order sent; a repeated name keeps its
// last value, once, as a map of them kept it. A string's data is JSON,
// with its quotes (it was kept without them before).
func TestExtensionsInOrder(t *testing.T) {
	for _, tc := range []struct {
		exts string
		want []Extension
	}{
		{``, nil},
		{`,"extensions":{}`, nil},
		{`,"extensions":{"x_a":1}`, []Extension{{"x_a", []byte(`1`)}}},
		{`,"extensions":{"x_a":1,"x_b":{"k":[2]},"x_c":"3"}`, []Extension{{"x_a", []byte(`1`)}, {"x_b", []byte(`{"k":[2]}`)}, {"x_c", []byte(`"3"`)}}},
		{`,"extensions":{"x_a":1,"x_b":2,"x_a":3}`, []Extension{{"x_a", []byte(`3`)}, {"x_b", []byte(`2`)}}},
		{`,"extensions":{"x_\u0061":1}`, []Extension{{"x_a", []byte(`1`)}}},
	} {
		var d Decoder
		in := strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal"`+tc.exts, 1)
		ev, _ := d.Decode([]byte(in))
		if ev == nil {
			t.Fatalf("%s: no event", tc.exts)
		}
		if len(ev.Extensions) != len(tc.want) {
			t.Fatalf("%s: extensions %q, want %q", tc.exts, ev.Extensions, tc.want)
		}
		for i, w := range tc.want {
			if g := ev.Extensions[i]; g.Name != w.Name || string(g.Data) != string(w.Data) {
				t.Errorf("%s: extension %d is %s=%s, want %s=%s", tc.exts, i, g.Name, g.Data, w.Name, w.Data)
			}
			if d, ok := ev.Extension(w.Name); !ok || string(d) != string(w.Data) {
				t.Errorf("%s: Extension(%q) = %s, %v", tc.exts, w.Name, d, ok)
			}
		}
		if _, ok := ev.Extension("x_none"); ok {
			t.Errorf("%s: Extension(x_none) found", tc.exts)
		}
	}
}

// Many extensions, past the few searched one by one for a repeat: every
// name once, in the order first sent, with its last value.
func TestManyExtensions(t *testing.T) {
	const names = 3000
	var b strings.Builder
	var want []Extension
	for round := range 2 {
		for i := range names {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			name := fmt.Sprintf("x_%d", i)
			fmt.Fprintf(&b, `%q:%d`, name, round*names+i)
			if round == 0 {
				want = append(want, Extension{Name: name})
			}
			want[i].Data = []byte(fmt.Sprint(round*names + i))
		}
	}
	var d Decoder
	in := strings.Replace(typical, `"urgency":"normal"`, `"urgency":"normal","extensions":{`+b.String()+`}`, 1)
	ev, _ := d.Decode([]byte(in))
	if ev == nil {
		t.Fatal("no event")
	}
	if len(ev.Extensions) != len(want) {
		t.Fatalf("%d extensions, want %d", len(ev.Extensions), len(want))
	}
	for i, w := range want {
		if g := ev.Extensions[i]; g.Name != w.Name || string(g.Data) != string(w.Data) {
			t.Fatalf("extension %d is %s=%s, want %s=%s", i, g.Name, g.Data, w.Name, w.Data)
		}
	}
}
