package capture

import (
	"bytes"
	"testing"
)

// TestReaderNextAllocations: reading a record of a capture allocates its
// message's copy and nothing else (the queue of a line's records is used
// again from line to line, not allocated anew for each record).
func TestReaderNextAllocations(t *testing.T) {
	var buf bytes.Buffer
	if err := writeToolCapture(&buf, 2_000); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1_000, func() {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("Reader.Next allocates %.1f times a record, want 1 (the message's copy)", allocs)
	}
}
