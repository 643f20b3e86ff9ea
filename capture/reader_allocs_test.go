package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/capturetest"
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

// TestReaderNextAllocationsConnections: a record of a version-2 capture
// names its connection by an ID of the header: reading it allocates the
// message's copy and nothing else, the ID being the header's string (a
// copy of it for every record was one allocation more), whether CheckAll
// reads (r.late) or Next; an ID too long for a string on the stack too.
func TestReaderNextAllocationsConnections(t *testing.T) {
	long := strings.Repeat("c", 64)
	for _, late := range []bool{false, true} {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, `{"aaep_capture":2,"started_at":"x","connections":[{"id":"c1","endpoint":"e"},{"id":"%s","endpoint":"f"}]}`+"\n", long)
		for i := range 2_000 {
			fmt.Fprintf(&buf, "[%d.5,\"i\",%s,\"%s\"]\n", i, capturetest.ToolEvent(i), []string{"c1", long}[i%2])
		}
		r, err := NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		r.late = late
		var rec Record
		allocs := testing.AllocsPerRun(1_000, func() {
			if err := r.next(&rec); err != nil {
				t.Fatal(err)
			}
			if rec.Conn != "c1" && rec.Conn != long {
				t.Fatalf("line %d: connection %q", rec.Line, rec.Conn)
			}
		})
		if allocs > 1 {
			t.Errorf("late %v: Reader.next allocates %.1f times a record of a version-2 capture, want 1 (the message's copy)", late, allocs)
		}
		if d, _ := r.Diagnostics(); len(d) > 0 {
			t.Errorf("diagnostics: %v", d)
		}
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

// TestReadLineEndings: readLine returns each line without the line
// breaks that end it, whether it is the usual line (in the buffer, one
// '\n'), one ended by "\r\n" or "\r\r\n", one longer than the buffer
// (readLineOn), or the last one with no newline, and counts the lines.
func TestReadLineEndings(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // more than the 64 KB buffer
	lines := []string{"a", "b\r", "c\r\r", "", long, "\r", "d", long}
	in := strings.Join(lines, "\n") // the last line has no newline
	r := &Reader{br: bufio.NewReaderSize(strings.NewReader(in), 64<<10)}
	for i, want := range []string{"a", "b", "c", "", long, "", "d", long} {
		got, last, err := r.readLine()
		if err != nil || string(got) != want || last != (i == len(lines)-1) || r.line != i+1 {
			t.Fatalf("line %d: %.20q (%d bytes), last %v, %v, line %d; want %.20q (%d bytes)", i+1, got, len(got), last, err, r.line, want, len(want))
		}
	}
	if _, _, err := r.readLine(); err != io.EOF {
		t.Fatalf("after the last line: %v, want io.EOF", err)
	}
}
