package protocol

import (
	"testing"

	"github.com/aaep-term/aaep-term/internal/capturetest"
)

// BenchmarkDecodeCapture decodes the stream capture's check benchmark
// reads (capturetest.ToolEvent), 4,096 events from event 40,000 on
// (five-digit sequence numbers, as most of a 200,000-event capture has),
// one decoder for all, as the check has on each of its decoding
// goroutines, into one room (DecodeInto) as the check decodes.
func BenchmarkDecodeCapture(b *testing.B) {
	events := make([][]byte, 4096)
	for i := range events {
		events[i] = capturetest.ToolEvent(40_000 + i)
	}
	var d Decoder
	var room EventRoom
	b.SetBytes(int64(len(events[0])))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.DecodeInto(events[i%len(events)], &room); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
