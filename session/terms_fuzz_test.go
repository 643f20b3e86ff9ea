package session

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// FuzzCheckHonored feeds producer-chosen honored capabilities (and a
// request) to the check, the words and the enforcer: nothing panics, and
// every sentence is one sanitized line.
func FuzzCheckHonored(f *testing.F) {
	f.Add([]byte(`{"max_events_per_second":5,"languages":["yo"],"event_filters":{"include":["aaep:agent.*"]}}`),
		[]byte(`{"max_events_per_second":50,"languages":["fr\u001b[2J"],"event_filters":{"include":["*"],"exclude":[]}}`), "aaep:agent.tool.invoked")
	f.Add([]byte(`{}`), []byte(`{"coalesce_boundaries":["word"],"supported_conformance_levels":[9],"cognitive_load":"\n"}`), "")
	f.Fuzz(func(t *testing.T, req, honored []byte, typ string) {
		var r, h protocol.Capabilities
		if json.Unmarshal(req, &r) != nil || json.Unmarshal(honored, &h) != nil {
			return
		}
		var words []string
		for _, v := range CheckHonored(r, h) {
			words = append(words, v.Message)
		}
		words = append(words, Changes(r, h)...)
		for _, w := range words {
			if strings.ContainsAny(w, "\x1b\n\r\x07") {
				t.Fatalf("unsanitized sentence %q", w)
			}
		}
		e := NewEnforcer(r, h)
		now := time.Unix(0, 0)
		for i := range 3 {
			ev := &protocol.Event{Type: typ}
			_, diags := e.Admit(ev, now.Add(time.Duration(i)*time.Millisecond))
			for _, d := range diags {
				if strings.ContainsAny(d.Message, "\x1b\n\r\x07") {
					t.Fatalf("unsanitized diagnostic %q", d.Message)
				}
			}
			crit := &protocol.Event{Type: typ, Urgency: protocol.UrgencyCritical}
			if ok, _ := e.Admit(crit, now); !ok {
				t.Fatal("a critical event was held back")
			}
		}
	})
}

// FuzzTermsSet: whatever the user types after "set", the terms that come
// back pass Check or an error says why.
func FuzzTermsSet(f *testing.F) {
	for _, s := range [][2]string{{"rate", "2"}, {"lang", "yo,en"}, {"include", "agent.*"}, {"verbosity", "verbose"}, {"exclude", "*,,x*y"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		got, _, err := Terms{Verbosity: "normal"}.Set(name, value)
		if err == nil && got.Check() != nil {
			t.Fatalf("set %q %q gave terms that fail Check: %v", name, value, got.Check())
		}
	})
}
