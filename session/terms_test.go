package session

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

func TestTermsCheck(t *testing.T) {
	tests := []struct {
		name  string
		terms Terms
		want  string // "" for no error, else a word the error names
	}{
		{"zero", Terms{}, ""},
		{"full", Terms{Rate: 5, Verbosity: "terse", Languages: []string{"yo", "en-GB"}, Coalesce: []string{"sentence"},
			Include: []string{"aaep:agent.tool.*"}, Exclude: []string{"aaep:agent.progress.updated"}, CognitiveLoad: "low", PaceWPM: 180}, ""},
		{"negative rate", Terms{Rate: -1}, "rate"},
		{"huge rate", Terms{Rate: 100001}, "rate"},
		{"verbosity", Terms{Verbosity: "verbose"}, "verbosity"},
		{"language with digit first", Terms{Languages: []string{"1en"}}, "lang"},
		{"language too long", Terms{Languages: []string{"abcdefghi"}}, "lang"},
		{"language empty subtag", Terms{Languages: []string{"en-"}}, "lang"},
		{"boundary", Terms{Coalesce: []string{"line"}}, "coalesce"},
		{"star inside", Terms{Include: []string{"aaep:*.tool"}}, "include: filter"},
		{"empty pattern", Terms{Exclude: []string{""}}, "exclude: filter"},
		{"load", Terms{CognitiveLoad: "normal"}, "cognitive-load"},
		{"slow pace", Terms{PaceWPM: 49}, "pace-wpm"},
		{"fast pace", Terms{PaceWPM: 1001}, "pace-wpm"},
	}
	for _, tt := range tests {
		err := tt.terms.Check()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one naming %q", tt.name, err, tt.want)
		}
	}
}

func TestPatternAndList(t *testing.T) {
	got := List(" agent.tool.* ,, aaep:agent.progress.updated,urn:x:y,*")
	want := []string{"aaep:agent.tool.*", "aaep:agent.progress.updated", "urn:x:y", "*"}
	if len(got) != len(want) {
		t.Fatalf("List gave %q", got)
	}
	for i := range got {
		if p := Pattern(got[i]); p != want[i] {
			t.Errorf("Pattern(%q) = %q, want %q", got[i], p, want[i])
		}
	}
}

func TestSubscriberIDStable(t *testing.T) {
	a := SubscriberID("/home/ada/.config/aaep-term", "ada")
	if a != SubscriberID("/home/ada/.config/aaep-term", "ada") {
		t.Fatal("the same user and directory gave two IDs")
	}
	if a == SubscriberID("/home/ada/.config/aaep-term", "bob") || a == SubscriberID("/tmp/other", "ada") {
		t.Error("different users or directories share an ID")
	}
	if strings.Contains(a, "ada") || !regexp.MustCompile(`^[a-z0-9-]{1,256}$`).MatchString(a) {
		t.Errorf("ID %q reveals the user or is not a plain identifier", a)
	}
}

// The request, a renegotiation and a close all pass our schemas, with the
// terms where the spec puts them and nothing the user left unset.
func TestMessagesValid(t *testing.T) {
	s, err := protocol.NewSchemas()
	if err != nil {
		t.Fatal(err)
	}
	terms := Terms{Rate: 5, Verbosity: "terse", Languages: []string{"yo", "en"}, Coalesce: []string{"sentence", "completion"},
		Include: []string{"aaep:agent.*"}, Exclude: []string{"aaep:agent.progress.*"}, CognitiveLoad: "low", PaceWPM: 200, CanConfirm: true}
	req, err := json.Marshal(Request(Identity{ID: SubscriberID("d", "u"), Name: "aaep-listen", Version: "0.1.0"}, terms))
	if err != nil {
		t.Fatal(err)
	}
	reneg, err := Renegotiate("sub_0123456789abcdef", protocol.Capabilities{MaxEventsPerSecond: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range [][]byte{req, reneg, Close("sub_0123456789abcdef", CloseShutdown, "You quit.")} {
		if err := s.Check(msg); err != nil {
			t.Errorf("%s: %v", msg, err)
		}
	}
	for _, want := range []string{`"max_events_per_second":5`, `"languages":["yo","en"]`, `"cognitive_load":"low"`, `"pace_wpm":200`,
		`"exclude":["aaep:agent.progress.*"]`, `"supports_confirmation_reply":true`, `"supports_clarification_reply":false`} {
		if !strings.Contains(string(req), want) {
			t.Errorf("request lacks %s: %s", want, req)
		}
	}
	if strings.Contains(string(reneg), "languages") || strings.Contains(string(reneg), "verbosity") {
		t.Errorf("renegotiation names terms it does not change: %s", reneg)
	}
	bare, _ := json.Marshal(Request(Identity{ID: "x"}, Terms{}))
	for _, absent := range []string{"max_events_per_second", "languages", "event_filters", "pace_wpm", "cognitive_load"} {
		if strings.Contains(string(bare), absent) {
			t.Errorf("unset %s was sent: %s", absent, bare)
		}
	}
}

func TestTermsSet(t *testing.T) {
	base := Terms{Rate: 5, Verbosity: "normal", Include: []string{"aaep:agent.*"}, Exclude: []string{"aaep:agent.progress.*"}}
	tests := []struct {
		name, value string
		sent        string // the capabilities to send, JSON; "" for an error
		errWord     string
	}{
		{"rate", "2", `{"max_events_per_second":2}`, ""},
		{"rate", "0", "", "whole number"},
		{"rate", "fast", "", "whole number"},
		{"verbosity", "verbose", `{"preferred_verbosity":"detailed"}`, ""},
		{"verbosity", "Terse", `{"preferred_verbosity":"terse"}`, ""},
		{"verbosity", "loud", "", "verbosity must be"},
		{"lang", "yo, en", `{"languages":["yo","en"]}`, ""},
		{"lang", " , ", "", "language tags"},
		{"lang", "en_GB", "", "not a language tag"},
		{"include", "agent.tool.*", `{"event_filters":{"include":["aaep:agent.tool.*"],"exclude":["aaep:agent.progress.*"]}}`, ""},
		{"exclude", "agent.state.changed,agent.output.*", `{"event_filters":{"include":["aaep:agent.*"],"exclude":["aaep:agent.state.changed","aaep:agent.output.*"]}}`, ""},
		{"exclude", "agent.*.changed", "", "not an event type"},
		{"colour", "red", "", "no setting"},
		{"", "", "", "set what"},
	}
	for _, tt := range tests {
		got, c, err := base.Set(tt.name, tt.value)
		if tt.sent == "" {
			if err == nil || !strings.Contains(err.Error(), tt.errWord) {
				t.Errorf("set %s %s: error %v, want one saying %q", tt.name, tt.value, err, tt.errWord)
			}
			continue
		}
		if err != nil {
			t.Errorf("set %s %s: %v", tt.name, tt.value, err)
			continue
		}
		b, _ := json.Marshal(c)
		if string(b) != tt.sent {
			t.Errorf("set %s %s: sends %s, want %s", tt.name, tt.value, b, tt.sent)
		}
		if got.Check() != nil || got.Verbosity == "" {
			t.Errorf("set %s %s: terms %+v", tt.name, tt.value, got)
		}
	}
	if base.Rate != 5 || len(base.Exclude) != 1 {
		t.Errorf("Set changed the terms it was called on: %+v", base)
	}
}

// One parser reads the verbosity for --verbosity, the settings file and
// "set verbosity": the same words everywhere.
func TestParseVerbosity(t *testing.T) {
	for in, want := range map[string]string{
		"terse": "terse", "normal": "normal", "detailed": "detailed",
		"verbose": "detailed", "Verbose": "detailed", " DETAILED ": "detailed",
		"loud": "", "": "", "verb": "",
	} {
		got, err := ParseVerbosity(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("ParseVerbosity(%q) = %q, %v; want %q", in, got, err, want)
		}
		set, _, serr := (Terms{}).Set("verbosity", in)
		if (serr == nil) != (err == nil) || serr == nil && set.Verbosity != want {
			t.Errorf("set verbosity %q = %q, %v; --verbosity gives %q, %v", in, set.Verbosity, serr, got, err)
		}
	}
}
