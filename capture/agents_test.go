package capture

import (
	"fmt"
	"strings"
	"testing"
)

// sharedSessionCapture is two agents, each with a correct session, both
// called sess_1, their events interleaved.
func sharedSessionCapture() string {
	var b strings.Builder
	n := 0
	ev := func(agent string, seq int, body string) {
		n++
		fmt.Fprintf(&b, `{"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","event_id":"evt_%d","session_id":"sess_1","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"%s"},%s}`+"\n", n, seq, agent, body)
	}
	ev("ada", 0, `"type":"aaep:agent.session.started","summary_normal":"Started."`)
	ev("bob", 0, `"type":"aaep:agent.session.started","summary_normal":"Started."`)
	ev("ada", 1, `"type":"aaep:agent.tool.invoked","tool":"read_file","tool_call_id":"call_1","summary_normal":"Reading."`)
	ev("bob", 1, `"type":"aaep:agent.session.completed","summary_normal":"Done."`)
	ev("ada", 2, `"type":"aaep:agent.tool.completed","tool":"read_file","tool_call_id":"call_1","status":"success","summary_normal":"Read."`)
	ev("ada", 3, `"type":"aaep:agent.session.completed","summary_normal":"Done."`)
	return b.String()
}

// Two agents using the same session ID are two sessions to check, trace
// and stats: one's events are never held against the other's session.
func TestSharedSessionIDTwoAgents(t *testing.T) {
	open := func() *Reader {
		r, err := NewReader(strings.NewReader(sharedSessionCapture()))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tr, err := BuildTrace(open(), "x", CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Violations != 0 || tr.Warnings != 0 || len(tr.Sessions) != 2 {
		var vs []string
		for _, s := range tr.Sessions {
			for _, st := range s.Steps {
				for _, v := range st.Violations {
					vs = append(vs, v.Message)
				}
			}
		}
		t.Errorf("trace: %d sessions, %d violations, %d warnings: %q", len(tr.Sessions), tr.Violations, tr.Warnings, vs)
	}
	st, err := BuildStats(open(), "x", CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range st.Sessions {
		got = append(got, fmt.Sprintf("%s/%s %s %d events %d violations", s.Agent, s.ID, s.Ended, s.Events, s.Violations))
	}
	want := []string{"ada/sess_1 aaep:agent.session.completed 4 events 0 violations", "bob/sess_1 aaep:agent.session.completed 2 events 0 violations"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stats sessions:\n%q\nwant\n%q", got, want)
	}
}
