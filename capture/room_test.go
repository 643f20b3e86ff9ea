package capture

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// roomCapture is a capture whose checking keeps things of early records
// while many later ones are decoded into the same rooms (CheckAll decodes
// every event into a room that goes round with its batch): a session that
// never ends (Finish names it by the ID of its first record), a
// confirmation of an irreversible call, then 6,000 tool calls of another
// tool in the other session (about 47 batches), then the confirmed call,
// which the confirmation covers only if the checker kept it whole. Last,
// an unconfirmed irreversible call at the end of a batch with its (late)
// confirmation first in the next, and the same call again, which that
// confirmation no longer covers.
func roomCapture() []byte {
	var b bytes.Buffer
	b.WriteString(`{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","redacted":true}` + "\n")
	n, lines := 0, 1
	event := func(session string, seq int, body string) {
		n++
		lines++
		fmt.Fprintf(&b, `[%d.5,"i",{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%d","session_id":"%s","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"urgency":"normal"}]`+"\n",
			n, body, n, session, seq)
	}
	started := `"type":"aaep:agent.session.started","summary_normal":"Started."`
	confirm := `"type":"aaep:agent.awaiting.confirmation","urgency":"critical","reply_token":"rpl_%d","action":"Remove the files.","tool":"rm"%s,"risk_level":"high","irreversible":true,"default_decision":"reject","timeout_seconds":60`
	rm := `"type":"aaep:agent.tool.invoked","tool":"rm"%s,"risk_level":"high","irreversible":true`
	event("sess_open", 0, started)
	event("sess_rm", 0, started)
	event("sess_rm", 1, strings.Replace(fmt.Sprintf(confirm, 1, `,"tool_call_id":"call_rm"`), `"urgency":"normal"`, "", 1))
	lines++
	fmt.Fprintf(&b, `[%d.6,"o",{"type":"confirmation.reply","reply_token":"rpl_1","decision":"accept"}]`+"\n", n)
	seq := 1
	for i := range 3000 {
		event("sess_open", seq, fmt.Sprintf(`"type":"aaep:agent.tool.invoked","tool":"ls","tool_call_id":"call_%d"`, i))
		event("sess_open", seq+1, fmt.Sprintf(`"type":"aaep:agent.tool.completed","tool":"ls","tool_call_id":"call_%d","status":"success"`, i))
		seq += 2
	}
	event("sess_rm", 2, fmt.Sprintf(rm, `,"tool_call_id":"call_rm"`))
	event("sess_rm", 3, `"type":"aaep:agent.tool.completed","tool":"rm","tool_call_id":"call_rm","status":"success"`)
	event("sess_rm", 4, `"type":"aaep:agent.session.completed"`)
	// The next session's tool call ends a batch of records.
	event("sess_late", 0, started)
	for (lines-1)%batchSize != batchSize-2 {
		event("sess_open", seq, `"type":"aaep:agent.state.changed","from_state":"thinking","to_state":"working"`)
		seq++
	}
	event("sess_late", 1, fmt.Sprintf(rm, ""))
	event("sess_late", 2, strings.Replace(fmt.Sprintf(confirm, 2, ""), `"urgency":"normal"`, "", 1))
	event("sess_late", 3, fmt.Sprintf(rm, ""))
	return b.Bytes()
}

// Nothing the checker keeps refers to an event's memory, which CheckAll
// uses again for later records: it checks roomCapture as reading and
// checking one record after the other does (where every event is new),
// and the confirmed call is found confirmed, the session that never
// ended named by its ID.
func TestCheckAllKeepsNoRoom(t *testing.T) {
	s, err := protocol.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	in := roomCapture()
	checkBoth(t, s, in)

	r, err := NewReader(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChecker(CheckOptions{Schemas: s})
	if err != nil {
		t.Fatal(err)
	}
	var unconfirmed []int
	if err := c.CheckAll(r, func(st Step) {
		for _, v := range st.Violations {
			if v.Rule == protocol.RuleUnconfirmedIrreversible {
				unconfirmed = append(unconfirmed, v.Line)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	// The late session's two calls: the confirmation between them was
	// the first one's.
	if len(unconfirmed) != 2 || unconfirmed[0] < 6000 {
		t.Errorf("unconfirmed irreversible calls on lines %v, want the late session's two only", unconfirmed)
	}
	finish := c.Finish()
	if len(finish) == 0 || !strings.Contains(finish[0].Message, "Session sess_open, started on line 2,") {
		t.Errorf("Finish: %v", finish)
	}
}

// CheckAll allocates no event for a record: what is left is the record's
// copy of its line (about one allocation a record; two before, with the
// event).
func TestCheckAllAllocations(t *testing.T) {
	s, err := protocol.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	const n = 20_000
	b.WriteString(`{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","redacted":true}` + "\n")
	for i := range n {
		body := `"type":"aaep:agent.state.changed","from_state":"thinking","to_state":"working"`
		if i == 0 {
			body = `"type":"aaep:agent.session.started","summary_normal":"Hi."`
		}
		fmt.Fprintf(&b, `[%d.5,"i",{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%d","session_id":"sess_1","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"},"urgency":"normal"}]`+"\n",
			i, body, i, i)
	}
	in := b.Bytes()
	allocs := testing.AllocsPerRun(2, func() {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		c, err := NewChecker(CheckOptions{Schemas: s})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CheckAll(r, func(st Step) {
			if len(st.Violations) > 0 {
				t.Fatal(st.Violations)
			}
		}); err != nil {
			t.Fatal(err)
		}
	})
	if a := allocs / n; a > 1.1 {
		t.Errorf("CheckAll allocates %.2f times a record, want at most 1.1", a)
	}
}
