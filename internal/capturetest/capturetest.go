// Package capturetest makes the events of the capture that issue 26's
// check benchmark reads, for the benchmarks and tests of the packages that
// read them (capture, protocol).
package capturetest

import (
	"fmt"
	"strings"
	"time"
)

// ToolEvent is event i of a capture of four long sessions, interleaved,
// that never end: state changes, progress, streamed output and tool calls,
// two calls in three never completed (a producer that drops completions).
// Every event is 585 bytes, as in the capture of issue 26.
func ToolEvent(i int) []byte {
	const sessions = 4
	sess, k := i%sessions, i/sessions
	seq := k
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
	default: // nothing to complete at k = 1
		body = `"type":"aaep:agent.state.changed","from_state":"working","to_state":"thinking"`
	}
	ts := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC).Add(time.Duration(i) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	ev := fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%08x","session_id":"sess_%d","sequence_number":%d,"timestamp":"%s","producer":{"agent_id":"research-assistant","agent_name":"Research Assistant"},"urgency":"normal","extensions":{"x_bench":{"note":"`,
		body, i, sess, seq, ts)
	const size = 585
	pad := max(size-len(ev)-len(`"}}}`), 0)
	return []byte(ev + strings.Repeat("p", pad) + `"}}}`)
}
