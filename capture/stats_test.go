package capture

import (
	"fmt"
	"strings"
	"testing"
)

func TestPercentiles(t *testing.T) {
	for _, tt := range []struct {
		in   []float64
		want Percentiles
	}{
		{nil, Percentiles{}},
		{[]float64{7}, Percentiles{N: 1, P50: 7, P90: 7, P99: 7, Max: 7}},
		{[]float64{4, 1, 3, 2}, Percentiles{N: 4, P50: 2, P90: 4, P99: 4, Max: 4}},
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, Percentiles{N: 10, P50: 5, P90: 9, P99: 10, Max: 10}},
	} {
		if got := percentiles(tt.in); got != tt.want {
			t.Errorf("percentiles(%v) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// statsCapture builds a capture from lines of [t, dir, msg] after a header.
func statsCapture(lines ...string) string {
	return `{"aaep_capture":1,"started_at":"2026-06-30T14:00:00Z","redacted":false}` + "\n" + strings.Join(lines, "\n") + "\n"
}

func ev(t float64, seq int, typ, ts, extra string) string {
	return fmt.Sprintf(`[%g,"i",{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.%s","event_id":"evt_s%03d","session_id":"sess_s1","timestamp":"2026-06-30T14:00:%s","producer":{"agent_id":"a1"},"sequence_number":%d%s}]`,
		t, typ, seq, ts, seq, extra)
}

// Tool outcomes and latencies, a confirmation that timed out by the
// producer's clock and one left unanswered at the end.
func TestStatsOutcomes(t *testing.T) {
	src := statsCapture(
		ev(0, 0, "session.started", "00Z", ""),
		ev(1, 1, "tool.invoked", "01Z", `,"tool":"t1","tool_call_id":"call_1"`),
		ev(1.2, 2, "tool.completed", "01.2Z", `,"tool":"t1","tool_call_id":"call_1","status":"error"`),
		ev(2, 3, "tool.invoked", "02Z", `,"tool":"t2","tool_call_id":"call_2"`),
		ev(2.1, 4, "tool.completed", "02.1Z", `,"tool":"t2","tool_call_id":"call_2","status":"timeout","duration_ms":900`),
		ev(3, 5, "tool.invoked", "03Z", `,"tool":"t3","tool_call_id":"call_3"`),
		ev(3.5, 6, "awaiting.confirmation", "03.5Z", `,"urgency":"critical","action":"Delete it.","reply_token":"rpl_one","timeout_seconds":5,"default_decision":"reject"`),
		ev(9, 7, "state.changed", "09Z", `,"from_state":"awaiting_input","to_state":"thinking"`),
		ev(9.5, 8, "awaiting.confirmation", "09.5Z", `,"urgency":"critical","action":"Send it.","reply_token":"rpl_two","timeout_seconds":60,"default_decision":"reject"`),
	)
	r, err := NewReader(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	st, err := BuildStats(r, "x", CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sessions) != 1 {
		t.Fatalf("%d sessions", len(st.Sessions))
	}
	c := st.Sessions[0].Counts
	want := ToolStats{Calls: 3, Error: 1, Timeout: 1, Unfinished: 1, ErrorPct: 33.3, TimeoutPct: 33.3,
		LatencyMS: Percentiles{N: 2, P50: 200, P90: 900, P99: 900, Max: 900}}
	if c.Tools != want {
		t.Errorf("tools %+v\nwant  %+v", c.Tools, want)
	}
	if cf := c.Confirmations; cf.Asked != 2 || cf.TimedOut != 1 || cf.Unanswered != 1 || cf.DecideMS.N != 0 {
		t.Errorf("confirmations %+v", cf)
	}
	if c.DurationS != 9.5 || st.Sessions[0].Ended != "" {
		t.Errorf("duration %v, ended %q", c.DurationS, st.Sessions[0].Ended)
	}
	var text strings.Builder
	if err := st.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"still open", "1 timed out (33.3 percent)", "1 timed out, 1 unanswered"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
}

// The figures of clean.aaep, which the corpus generator wrote with known
// content: two confirmations (one accepted, one rejected), a tool call
// answered by each, one output of two chunks; and of tool-pairing.aaep,
// whose violations are counted.
func TestStatsFigures(t *testing.T) {
	t.Parallel()
	stats := func(name string) *Stats {
		t.Helper()
		r, err := Open("testdata/corpus/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		st, err := BuildStats(r, name, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := stats("clean.aaep")
	tot := st.Total
	if len(st.Sessions) == 0 || len(st.Agents) != 1 || st.Agents[0].ID != "bank-agent" || st.Agents[0].Name != "Bank Helper" {
		t.Fatalf("sessions %d agents %+v", len(st.Sessions), st.Agents)
	}
	if tot.Confirmations.Asked < 2 || tot.Confirmations.Accepted < 1 || tot.Confirmations.Rejected < 1 {
		t.Errorf("confirmations %+v", tot.Confirmations)
	}
	if tot.Tools.Calls < 2 || tot.Tools.Success != tot.Tools.Calls || tot.Tools.SuccessPct != 100 {
		t.Errorf("tools %+v", tot.Tools)
	}
	if tot.Output.Bytes != len("Transferred $500. New balance: $12,000.") || tot.Output.Outputs != 1 || tot.Output.Complete != 1 {
		t.Errorf("output %+v", tot.Output)
	}
	if tot.Violations != 0 {
		t.Errorf("%d violations in a clean capture", tot.Violations)
	}
	s := st.Sessions[0]
	if s.ID != "sess_clean01" || s.DurationS != 0.65 || s.Ended != "aaep:agent.session.completed" {
		t.Errorf("first session %+v", s)
	}
	if got := s.Confirmations.DecideMS; got.N != 1 || got.P50 < 49 || got.P50 > 51 {
		t.Errorf("time to decide %+v, want 50 ms (0.30 s to 0.35 s)", got)
	}
	if v := stats("tool-pairing.aaep").Total.Violations; v == 0 {
		t.Errorf("tool-pairing: %d violations", v)
	}
}
