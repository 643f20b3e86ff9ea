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

// A record's time is read as JSON writes a number, or the record is left
// to the slow path: a leading zero only alone, digits on both sides of a
// point, whatever its number of digits.
func TestJSONTimeAt(t *testing.T) {
	for _, tc := range []struct {
		time string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"0.5", 0.5, true},
		{"05", 0, false},
		{"00.5", 0, false},
		{"-0.5", -0.5, true}, // JSON (quickRecord refuses a time below zero)
		{"1e3", 1000, true},
		{"1.", 0, false},
		{"12.345678", 12.345678, true},
		{"199.999000", 199.999, true},
		{"12345678", 12345678, true},
		{"123456789", 123456789, true},
		{"12345678.1234567", 12345678.1234567, true},
		{"1234567890.123456", 1234567890.123456, true},
	} {
		line := []byte("[" + tc.time + `,"i",{}]`)
		got, end, ok := jsonTimeAt(line, 1)
		if end != 1+len(tc.time) || ok != tc.ok || ok && got != tc.want {
			t.Errorf("jsonTimeAt(%s) = %v, %d, %v; want %v, %d, %v", line, got, end, ok, tc.want, 1+len(tc.time), tc.ok)
		}
	}
}
