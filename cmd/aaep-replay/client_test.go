package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// captureOf writes a capture of recs ([t, dir, msg] lines after a header)
// and returns its path.
func captureOf(t *testing.T, recs ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.aaep")
	body := `{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z","endpoint":"http://127.0.0.1:8080","transport":"sse","redacted":false}` + "\n" +
		strings.Join(recs, "\n") + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rec is one capture line: msg received (dir "i") or sent ("o") at t seconds.
func rec(t float64, dir, msg string) string { return fmt.Sprintf("[%.6f,%q,%s]", t, dir, msg) }

// event is an event of session sess_t1 with sequence number seq and the
// given fields (JSON members, without braces).
func event(typ string, seq int, fields string) string {
	return fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":%q,"event_id":"evt_t1%04d","session_id":"sess_t1","sequence_number":%d,"timestamp":"2026-06-30T14:22:1%d.000Z","producer":{"agent_id":"bank-agent","agent_name":"Bank Helper"}%s}`,
		typ, seq, seq, min(seq, 9), fields)
}

func state(seq int, from, to, urgency string) string {
	f := fmt.Sprintf(`,"from_state":%q,"to_state":%q,"summary_normal":"Step %d: now %s."`, from, to, seq, to)
	if urgency != "" {
		f += fmt.Sprintf(`,"urgency":%q`, urgency)
	}
	return event("aaep:agent.state.changed", seq, f)
}

// termsCapture is a recorded subscription whose honored terms (2 events a
// second, no tool events) the recorded producer then broke: a tool event,
// and a flood of six events in one instant, two of them background.
func termsCapture(t *testing.T) string {
	caps := `{"max_events_per_second":2,"event_filters":{"exclude":["aaep:agent.tool.*"]},"supports_confirmation_reply":false,"supports_clarification_reply":false,"supported_conformance_levels":[1,2,3]}`
	return captureOf(t,
		rec(0.01, "o", `{"type":"subscription.request","aaep_version":"0.1","subscriber_id":"rec","capabilities":`+caps+`}`),
		rec(0.02, "i", `{"type":"subscription.accepted","subscription_id":"sub_terms1","aaep_version":"0.1","producer":{"agent_id":"bank-agent","agent_name":"Bank Helper"},"honored_capabilities":`+caps+`}`),
		rec(0.1, "i", event("aaep:agent.session.started", 0, `,"summary_normal":"Bank Helper is starting."`)),
		rec(0.3, "i", event("aaep:agent.tool.invoked", 1, `,"tool":"secret_tool","tool_call_id":"call_1","summary_normal":"Calling secret_tool."`)),
		rec(1.0, "i", state(2, "idle", "thinking", "")),
		rec(1.0, "i", state(3, "thinking", "calling_tool", "")),
		rec(1.0, "i", state(4, "calling_tool", "thinking", "")),
		rec(1.0, "i", state(5, "thinking", "calling_tool", "background")),
		rec(1.0, "i", state(6, "calling_tool", "thinking", "background")),
		rec(1.0, "i", state(7, "thinking", "writing_output", "")),
		rec(3.0, "i", state(8, "writing_output", "idle", "")),
	)
}

// play announces a capture as the live listener would have: the terms the
// recorded producer honored are enforced (its filtered tool event is not
// announced, its flood beyond the rate is told and background events in it
// are dropped), and the subscription is told as aaep-listen tells it.
func TestPlayEnforcesRecordedTerms(t *testing.T) {
	code, out, errOut := runReplay(t, "play", "--speed", "0", termsCapture(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out += errOut // warnings go to standard error
	for _, want := range []string{
		"Subscribed to",
		"The producer sent aaep:agent.tool.invoked events, which your filters exclude; they are not announced.",
		"The producer is sending faster than the 2 events per second it agreed to",
		"The producer is back within the agreed rate; 4 events came beyond it, of which 2 background events were not announced.",
		"Step 7: now writing_output.",
		"End of the capture: 11 messages replayed.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"secret_tool", "Step 5:", "Step 6:"} {
		if strings.Contains(out, not) {
			t.Errorf("output announces %q, which the terms hold back:\n%s", not, out)
		}
	}
}

// A burst of replayed history (frames received in one instant) is played
// as the same frames spread over time are, as the live listener tells
// them: the prompt when it comes, then, in the place of the event that
// settles it, that it was settled.
func TestPlayBurstAsSpreadOverTime(t *testing.T) {
	var outs []string
	for _, at := range [][]float64{{0.1, 0.1, 0.1, 0.1, 0.5}, {0.1, 0.2, 0.3, 0.4, 0.5}} {
		path := captureOf(t,
			rec(at[0], "i", event("aaep:agent.session.started", 0, `,"summary_normal":"Bank Helper is starting."`)),
			rec(at[1], "i", state(1, "thinking", "awaiting_input", "")),
			rec(at[2], "i", event("aaep:agent.awaiting.confirmation", 2, `,"urgency":"critical","action":"Transfer $500 to savings.","consequence":"Money moves at once.","reply_token":"rpl_t1token","timeout_seconds":300,"default_decision":"reject","risk_level":"high","irreversible":true`)),
			rec(at[3], "i", state(3, "awaiting_input", "thinking", "")),
			rec(at[4], "i", state(4, "thinking", "idle", "")),
		)
		code, out, errOut := runReplay(t, "play", "--speed", "0", path)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		rest := out
		for _, w := range []string{"Confirmation needed, prompt 1: Transfer $500 to savings.",
			"Prompt 1 was settled elsewhere", "Step 3: now thinking.", "Step 4: now idle."} {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%q is missing or out of order:\n%s", w, out)
				break
			}
			rest = rest[i+len(w):]
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("a burst plays otherwise than the same frames spread over time:\n%s\n\nspread:\n%s", outs[0], outs[1])
	}
}

// Playing a capture makes no network request: a manifest the recorded
// producer names is not fetched, only told.
func TestPlayFetchesNoManifest(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	path := captureOf(t,
		rec(0.02, "i", `{"type":"subscription.accepted","subscription_id":"sub_m1","aaep_version":"0.1","manifest_uri":"`+srv.URL+`/manifest.json","producer":{"agent_id":"bank-agent","agent_name":"Bank Helper","manifest_uri":"`+srv.URL+`/m2.json"},"honored_capabilities":{}}`),
		rec(0.1, "i", event("aaep:agent.session.started", 0, `,"summary_normal":"Bank Helper is starting.","producer":{"agent_id":"bank-agent","manifest_uri":"`+srv.URL+`/m3.json"}`)),
	)
	code, out, errOut := runReplay(t, "play", "--speed", "0", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("playing a capture made %d requests to the manifest's server:\n%s", n, out)
	}
	if !strings.Contains(out, "it is not fetched when reading a file") {
		t.Errorf("the recorded manifest is not told:\n%s", out)
	}
}

// A usage error of any command exits 2 and points at its --help (the
// words every command says, cliflag.Commands).
func TestUsageErrorHint(t *testing.T) {
	for _, args := range [][]string{{"play", "--speed", "-1", "x.aaep"}, {"play", "--bogus"}, {"export", "--format", "pdf", "x"}, {"check"}} {
		code, _, errOut := runReplay(t, args...)
		if code != 2 || !strings.Contains(errOut, "Run aaep-replay "+args[0]+" --help for usage.") || strings.Count(errOut, "\n") != 2 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// A flood of more frames in one instant than the client queues is handed
// over in bursts the client can take: nothing is lost, nothing waits forever.
func TestPlayLongBurst(t *testing.T) {
	const n = 3*maxBurst + 7
	recs := []string{rec(0.1, "i", event("aaep:agent.session.started", 0, `,"summary_normal":"Bank Helper is starting."`))}
	for i := 1; i <= n; i++ {
		recs = append(recs, rec(0.1, "i", state(i, "thinking", "calling_tool", "")))
	}
	code, out, errOut := runReplay(t, "play", "--speed", "0", "--json", captureOf(t, recs...))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := len(announcements(t, []byte(out))); got != n+1 {
		t.Errorf("%d announcements, want %d", got, n+1)
	}
}

// A renegotiation the recorded subscriber made is the client's own: the
// producer's next acceptance is read as its answer, as it was live.
func TestPlayRecordedRenegotiation(t *testing.T) {
	acc := func(id string, rate int) string {
		return fmt.Sprintf(`{"type":"subscription.accepted","subscription_id":%q,"aaep_version":"0.1","producer":{"agent_id":"bank-agent","agent_name":"Bank Helper"},"honored_capabilities":{"max_events_per_second":%d}}`, id, rate)
	}
	path := captureOf(t,
		rec(0.01, "o", `{"type":"subscription.request","aaep_version":"0.1","subscriber_id":"rec","capabilities":{"max_events_per_second":2}}`),
		rec(0.02, "i", acc("sub_r1", 2)),
		rec(0.1, "i", event("aaep:agent.session.started", 0, `,"summary_normal":"Bank Helper is starting."`)),
		rec(0.5, "o", `{"type":"subscription.renegotiate","subscription_id":"sub_r1","capabilities":{"max_events_per_second":5}}`),
		rec(0.6, "i", acc("sub_r1", 5)),
		rec(0.9, "i", state(1, "idle", "thinking", "")),
	)
	code, out, errOut := runReplay(t, "play", "--speed", "0", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "The producer accepted the new terms") || strings.Count(out, "Subscribed to") != 1 {
		t.Errorf("the recorded renegotiation is not told as live:\n%s%s", out, errOut)
	}
}
