package protocol

import "testing"

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
