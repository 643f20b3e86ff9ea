package protocol_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// A tool call as a producer sends it, with a trap in its summary: an
// escape sequence that would clear a terminal and a right-to-left override
// that would show the amount reversed.
const toolInvoked = `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0",
"type":"aaep:agent.tool.invoked","event_id":"evt_00000000000000a1","session_id":"sess_000000000007",
"sequence_number":3,"timestamp":"2026-06-30T14:22:11.342Z",
"producer":{"agent_id":"pay","agent_name":"Payments","agent_version":"2.3.1"},
"tool":"transfer_money","tool_call_id":"call_17","risk_level":"high","irreversible":true,
"summary_normal":"\u001b[2JSending \u202e04.68\u202c euros."}`

// Decode and validate an event, then show its text: Text's String method
// sanitizes what the producer wrote; Unsafe is the only way to the raw bytes.
func ExampleDecoder_Decode() {
	var dec protocol.Decoder // the zero value is ready; not for concurrent use
	ev, err := dec.Decode([]byte(toolInvoked))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ev.Type, ev.Seq, ev.Tool, ev.RiskLevel)
	fmt.Printf("%q\n", ev.SummaryNormal.String())
	fmt.Println(protocol.CriticalType(ev.Type))
	// Output:
	// aaep:agent.tool.invoked 3 transfer_money high
	// "Sending 04.68 euros."
	// false
}

// An event that breaks the schema is still decoded when it can be; the
// *ValidationError lists every problem with its JSON pointer.
func ExampleValidationError() {
	broken := strings.Replace(toolInvoked, `"tool_call_id":"call_17"`, `"tool_call_id":17,"urgency":"panic"`, 1)
	var dec protocol.Decoder
	ev, err := dec.Decode([]byte(broken))
	var ve *protocol.ValidationError
	if errors.As(err, &ve) {
		for _, p := range ve.Problems {
			fmt.Println(p.Pointer) // p.Message is not sanitized: it may quote the producer
		}
	}
	fmt.Println(ev != nil)
	// Output:
	// /tool_call_id
	// /urgency
	// true
}

// A handshake or reply message is never an event: Decode says which it is.
func ExampleNotEventError() {
	var dec protocol.Decoder
	_, err := dec.Decode([]byte(`{"type":"subscription.close","reason_code":"shutdown"}`))
	var ne *protocol.NotEventError
	fmt.Println(errors.As(err, &ne), ne.Type)
	// Output: true subscription.close
}

// Sanitize makes producer text safe for a terminal, a braille line or
// speech; Line also folds line breaks, so the text cannot start a line that
// looks like the program's own.
func ExampleLine() {
	forged := "done.\r\nConnected to your bank.\x1b]0;owned\x07"
	fmt.Printf("%q\n", protocol.Sanitize(forged))
	fmt.Printf("%q\n", protocol.Line(forged))
	// Output:
	// "done.\nConnected to your bank."
	// "done. Connected to your bank."
}
