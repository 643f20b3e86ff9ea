package subscriber_test

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// An event whose only problem is a member its type does not define, which
// the published schema accepts (summary_normal on streamed output,
// error_message on an errored session), is said to carry that member, not
// to break the AAEP schema; an event with a real problem still is.
func TestUndefinedMemberIsNotASchemaBreak(t *testing.T) {
	t.Parallel()
	const head = `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","event_id":"evt_1","session_id":"sess_1","timestamp":"2026-06-30T14:22:11Z","producer":{"agent_id":"a"},"urgency":"critical",`
	for _, tc := range []struct{ name, event, want string }{
		{"summary_normal on streamed output", `"type":"aaep:agent.output.streaming","output_id":"out_1","position":0,"chunk":"Hi.","complete":true,"summary_normal":"Hi."}`,
			"carries a member its type does not define and is announced anyway: /summary_normal: "},
		{"error_message on an errored session", `"type":"aaep:agent.session.errored","error_category":"transient","summary_normal":"It failed.","error_message":"boom"}`,
			"carries a member its type does not define and is announced anyway: /error_message: "},
		{"two undefined members", `"type":"aaep:agent.session.errored","error_category":"transient","summary_normal":"It failed.","error_message":"boom","colour":"red"}`,
			"carries members its type does not define and is announced anyway"},
		{"a real break", `"type":"aaep:agent.session.errored","error_category":"nonsense","summary_normal":"It failed.","colour":"red"}`,
			"breaks the AAEP schema and is announced anyway"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dec protocol.Decoder
			b := []byte(head + tc.event)
			ev, err := dec.Decode(b)
			if err == nil {
				t.Fatalf("no problem found in %s", b)
			}
			if got := subscriber.DecodeProblem(ev, err, len(b)); !strings.Contains(got, tc.want) {
				t.Errorf("said %q; want %q", got, tc.want)
			}
		})
	}
}
