package protocol

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// captureEvent is event i of a stream like the capture `aaep-replay check`
// reads in its benchmark (capture's toolEvent): four sessions interleaved,
// eight steps rotating through five event types, each event padded to 585
// bytes by a string in its extensions, whose length differs from step to
// step. A member's value changes with the type far more than in a flood.
func captureEvent(i int) []byte {
	const sessions = 4
	sess, k := i%sessions, i/sessions
	var body string
	switch step := k % 8; {
	case k == 0:
		body = `"type":"aaep:agent.session.started","summary_normal":"Research Assistant is looking up the quarterly figures."`
	case step == 0 || step == 4:
		body = fmt.Sprintf(`"type":"aaep:agent.tool.invoked","tool":"fetch","tool_call_id":"call_%d","summary_normal":"Fetching the report.","args_summary":"quarter: Q3"`, k)
	case step == 1 && k > 1:
		body = fmt.Sprintf(`"type":"aaep:agent.tool.completed","tool":"fetch","tool_call_id":"call_%d","status":"success"`, k-1)
	case step == 2:
		body = `"type":"aaep:agent.state.changed","from_state":"thinking","to_state":"working"`
	case step == 3 || step == 6:
		body = fmt.Sprintf(`"type":"aaep:agent.output.streaming","output_id":"out_1","position":%d,"chunk":"Revenue grew by four percent. ","complete":false`, k)
	case step == 5:
		body = `"type":"aaep:agent.progress.updated","progress":{"percent":50},"summary_normal":"Half of the figures are in."`
	case step == 7:
		body = fmt.Sprintf(`"type":"aaep:agent.tool.invoked","tool":"search","tool_call_id":"call_%d","summary_normal":"Searching the notes.","args_summary":"figures"`, k)
	default:
		body = `"type":"aaep:agent.state.changed","from_state":"working","to_state":"thinking"`
	}
	ts := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC).Add(time.Duration(i) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%08x","session_id":"sess_%d","sequence_number":%d,"timestamp":"%s","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant"},"urgency":"normal","extensions":{"x_bench":{"note":"`,
		body, i, sess, k, ts)
	pad := max(585-len(ev)-len(`"}}}`), 0)
	return []byte(ev + strings.Repeat("p", pad) + `"}}}`)
}

// BenchmarkDecodeCapture decodes a capture-like stream (captureEvent) of
// 4,096 events from event 40,000 on (five-digit sequence numbers, as most
// of a 200,000-event capture has), one decoder for all, as the check has
// on each of its decoding goroutines, into one room (DecodeInto) as the
// check decodes.
func BenchmarkDecodeCapture(b *testing.B) {
	events := make([][]byte, 4096)
	for i := range events {
		events[i] = captureEvent(40_000 + i)
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
