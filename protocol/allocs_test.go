package protocol

import (
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

// An extension's name is a part of the event, not a copy.
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
	}); a > 3 {
		t.Errorf("decoding an event with one extension allocates %v times, want 3 (the event, its map and the map's room)", a)
	}
}
