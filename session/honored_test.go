package session

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

func caps(t *testing.T, s string) protocol.Capabilities {
	t.Helper()
	var c protocol.Capabilities
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return c
}

func TestCheckHonored(t *testing.T) {
	const req = `{"max_events_per_second":5,"languages":["yo","en"],"coalesce_boundaries":["sentence","completion"],
		"event_filters":{"include":["aaep:agent.tool.*","aaep:agent.session.*"],"exclude":["aaep:agent.tool.completed"]},
		"supports_confirmation_reply":true,"supports_clarification_reply":false,"supported_conformance_levels":[1,2]}`
	tests := []struct {
		name    string
		req     string
		honored string
		fields  []string // the fields that break the rule, in order
	}{
		{"equal", req, req, nil},
		{"less", req, `{"max_events_per_second":2,"languages":["EN"],"coalesce_boundaries":["completion"],
			"event_filters":{"include":["aaep:agent.tool.invoked"],"exclude":["aaep:agent.tool.*"]},"supported_conformance_levels":[1]}`, nil},
		{"faster", req, `{"max_events_per_second":10}`, []string{"max_events_per_second", "event_filters", "event_filters"}},
		{"no limit", `{"max_events_per_second":5}`, `{}`, []string{"max_events_per_second"}},
		{"unlimited request", `{}`, `{"max_events_per_second":1000}`, nil},
		{"language", req, `{"max_events_per_second":5,"languages":["fr"],"event_filters":{"include":["aaep:agent.tool.*"],"exclude":["aaep:agent.tool.completed"]}}`, []string{"languages"}},
		{"default language", `{}`, `{"languages":["en-us"]}`, nil},
		{"boundary", `{}`, `{"coalesce_boundaries":["word"]}`, []string{"coalesce_boundaries"}},
		{"wider include", `{"event_filters":{"include":["aaep:agent.tool.*"]}}`, `{"event_filters":{"include":["aaep:agent.*"]}}`, []string{"event_filters"}},
		{"exclusion covered by a wider one", `{"event_filters":{"exclude":["aaep:agent.tool.completed"]}}`, `{"event_filters":{"exclude":["aaep:agent.*"]}}`, nil},
		{"replies", `{"supports_confirmation_reply":false}`, `{"supports_confirmation_reply":true,"supports_clarification_reply":true}`,
			[]string{"supports_confirmation_reply", "supports_clarification_reply"}},
		{"levels", `{"supported_conformance_levels":[1,2]}`, `{"supported_conformance_levels":[1,3]}`, []string{"supported_conformance_levels"}},
		{"default level", `{}`, `{"supported_conformance_levels":[2]}`, []string{"supported_conformance_levels"}},
	}
	for _, tt := range tests {
		v := CheckHonored(caps(t, tt.req), caps(t, tt.honored))
		var got []string
		for _, x := range v {
			got = append(got, x.Field)
			if !strings.HasSuffix(x.Message, ".") || !strings.HasPrefix(x.Message, "The producer") {
				t.Errorf("%s: %q is not a sentence about the producer", tt.name, x.Message)
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.fields, " ") {
			t.Errorf("%s: violations %q, want %q", tt.name, got, tt.fields)
		}
	}
}

func TestChanges(t *testing.T) {
	got := Changes(caps(t, `{"max_events_per_second":5,"preferred_verbosity":"terse","languages":["yo","en"],"cognitive_load":"low"}`),
		caps(t, `{"max_events_per_second":2,"preferred_verbosity":"normal","languages":["en"],"cognitive_load":"medium"}`))
	want := []string{
		"Producer allows 2 events per second; you asked for 5.",
		"Producer writes at normal verbosity; you asked for terse.",
		"Producer speaks only en; you asked for yo and en.",
		"Producer assumes medium cognitive load; you asked for low.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := Changes(caps(t, `{"max_events_per_second":5}`), caps(t, `{"max_events_per_second":5}`)); len(c) != 0 {
		t.Errorf("no change reads as %q", c)
	}
	if c := Changes(caps(t, `{}`), caps(t, `{"max_events_per_second":1000}`)); len(c) != 1 || !strings.Contains(c[0], "no limit") {
		t.Errorf("a limit where none was asked reads as %q", c)
	}
}

func termEv(typ string, u protocol.Urgency) *protocol.Event {
	return &protocol.Event{Type: typ, Urgency: u, EventID: "evt_1", SessionID: "ses_1"}
}

// Filters drop what the user excluded (said once per type); critical
// events pass whatever the filters say.
func TestEnforcerFilters(t *testing.T) {
	e := NewEnforcer(caps(t, `{"event_filters":{"include":["aaep:agent.tool.*","aaep:agent.session.*"]}}`),
		caps(t, `{"event_filters":{"exclude":["aaep:agent.tool.completed"]}}`))
	now := time.Unix(0, 0)
	tests := []struct {
		ev    *protocol.Event
		admit bool
		diags int
	}{
		{termEv("aaep:agent.tool.invoked", ""), true, 0},
		{termEv("aaep:agent.tool.completed", ""), false, 1},
		{termEv("aaep:agent.tool.completed", ""), false, 0},
		{termEv("aaep:agent.progress.updated", ""), false, 1},
		{termEv(protocol.TypeAwaitingConfirmation, ""), true, 0},
		{termEv("aaep:agent.progress.updated", protocol.UrgencyCritical), true, 0},
		{termEv("aaep:agent.session.started", ""), true, 0},
	}
	for i, tt := range tests {
		ok, d := e.Admit(tt.ev, now)
		if ok != tt.admit || len(d) != tt.diags {
			t.Errorf("%d %s: admitted %v with %d diagnostics, want %v with %d", i, tt.ev.Type, ok, len(d), tt.admit, tt.diags)
		}
	}
	e.Tolerate(now.Add(time.Second))
	if ok, d := e.Admit(termEv("aaep:agent.state.changed", ""), now); ok || len(d) != 0 {
		t.Errorf("in flight after a renegotiation: admitted %v, %d diagnostics; want dropped silently", ok, len(d))
	}
}

// A flood beyond the rate is reported once when it starts and once when it
// ends; background events in it are dropped, every critical one passes.
func TestEnforcerRate(t *testing.T) {
	e := NewEnforcer(caps(t, `{"max_events_per_second":10}`), caps(t, `{"max_events_per_second":2}`))
	if e.Rate() != 2 {
		t.Fatalf("rate %d, want the lower 2", e.Rate())
	}
	now := time.Unix(100, 0)
	var diags []Diagnostic
	admitted, critical := 0, 0
	for i := range 100 {
		u := protocol.UrgencyBackground
		if i%10 == 0 {
			u = protocol.UrgencyCritical
		}
		ok, d := e.Admit(termEv("aaep:agent.progress.updated", u), now.Add(time.Duration(i)*time.Millisecond))
		diags = append(diags, d...)
		if ok {
			admitted++
			if u == protocol.UrgencyCritical {
				critical++
			}
		}
	}
	if critical != 10 {
		t.Errorf("%d of 10 critical events passed", critical)
	}
	if admitted > 10+3 {
		t.Errorf("%d events admitted in 0.1 s at 2 per second", admitted)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Message, "faster than the 2 events per second") {
		t.Fatalf("diagnostics during the flood: %+v", diags)
	}
	later := now.Add(5 * time.Second)
	ok, d := e.Admit(termEv("aaep:agent.progress.updated", ""), later)
	if !ok || len(d) != 1 || !strings.Contains(d[0].Message, "88 events came beyond it, of which 88 background events were not announced") {
		t.Errorf("after the flood: admitted %v, %+v", ok, d)
	}
	if f := e.Flush(later); f != nil {
		t.Errorf("a burst ended twice: %+v", f)
	}
	// Normal-urgency events beyond the rate are still announced.
	for i := range 5 {
		if ok, _ := e.Admit(termEv("aaep:agent.state.changed", ""), later.Add(time.Duration(i)*time.Millisecond)); !ok {
			t.Errorf("normal event %d dropped", i)
		}
	}
	if f := e.Flush(later); len(f) != 1 {
		t.Errorf("Flush during a burst: %+v", f)
	}
}
