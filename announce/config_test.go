package announce

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name, js, err string
	}{
		{"empty", `{}`, ""},
		{"full", `{"verbosity":"terse","pace_wpm":220,"max_lag_seconds":2.5,"fold_seconds":60,
			"types":{"tool.completed":{"verbosity":"detailed","priority":"background","speak":false}}}`, ""},
		{"unknown field", `{"verbosty":"terse"}`, "unknown field"},
		{"bad verbosity", `{"verbosity":"loud"}`, "want terse, normal or detailed"},
		{"bad pace", `{"pace_wpm":5000}`, "50 to 1000"},
		{"bad lag", `{"max_lag_seconds":-1}`, "0 to 60"},
		{"bad type priority", `{"types":{"tool.invoked":{"priority":"urgent"}}}`, "types.tool.invoked.priority"},
		{"two values", `{} {}`, "more than one"},
		{"not json", `verbosity=terse`, "announcement settings"},
	}
	for _, tt := range tests {
		_, err := ParseSettings([]byte(tt.js))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.err)
		}
	}
}

func TestSettingsApply(t *testing.T) {
	path := filepath.Join(t.TempDir(), "announce.json")
	os.WriteFile(path, []byte(`{"pace_wpm":240,"max_lag_seconds":2,"types":{
		"tool.completed":{"verbosity":"terse","priority":"background"},
		"agent.state.changed":{"speak":false},
		"aaep:agent.session.errored":{"priority":"background","speak":false}}}`), 0o600)
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	if pc := s.Pace(PaceConfig{WPM: 180}); pc.WPM != 240 || pc.MaxLag != 2*time.Second {
		t.Fatalf("pace %+v", pc)
	}
	r := &recorder{}
	a := New(Config{Types: s.Types}, r)
	for _, ev := range []*protocol.Event{
		{Type: protocol.TypeToolCompleted, Tool: "search", Status: "success", SummaryTerse: "Found.", SummaryNormal: "Found three results."},
		{Type: protocol.TypeStateChanged, ToState: "working", SummaryNormal: "Now working."},
		{Type: protocol.TypeSessionErrored, SummaryNormal: "Disk full."},
	} {
		a.Deliver(session.Delivery{Kind: session.KindEvent, Event: ev})
	}
	got := r.got
	if len(got) != 3 {
		t.Fatalf("got %q", r.texts())
	}
	if got[0].Text != "Found." || got[0].Priority != Background || got[0].LogOnly {
		t.Errorf("tool.completed: %+v", got[0])
	}
	if !got[1].LogOnly {
		t.Errorf("state.changed should be log only: %+v", got[1])
	}
	// A critical event stays critical and spoken whatever the settings say.
	if got[2].Priority != Critical || got[2].LogOnly {
		t.Errorf("session.errored lowered: %+v", got[2])
	}
	if _, err := LoadSettings(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("a missing file is no error")
	}
}

func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(`{"verbosity":"terse","pace_wpm":220,"types":{"tool.completed":{"speak":false}}}`))
	f.Add([]byte(`{"types":{"x:y":{"priority":"critical"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSettings(data)
		if err != nil {
			return
		}
		if s.PaceWPM != 0 && (s.PaceWPM < 50 || s.PaceWPM > 1000) {
			t.Fatalf("pace %d accepted", s.PaceWPM)
		}
		for k, ts := range s.Types {
			if !strings.Contains(k, ":") {
				t.Fatalf("type key %q not normalized", k)
			}
			if _, ok := priorityNamed(ts.Priority); !ok {
				t.Fatalf("priority %q accepted", ts.Priority)
			}
		}
	})
}
