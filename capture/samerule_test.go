package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// ruleOutput records the event IDs the engine flags with one rule code, as
// a safety warning or a diagnostic.
type ruleOutput struct {
	code    string
	flagged []string
}

func (o *ruleOutput) Deliver(d session.Delivery) {
	if d.Kind == session.KindSafetyWarning && d.Rule == o.code {
		o.flagged = append(o.flagged, d.Event.EventID)
	}
}

func (o *ruleOutput) Diagnose(d session.Diagnostic) {
	if d.Code == o.code {
		o.flagged = append(o.flagged, d.EventID)
	}
}

// The listener (live, session.Engine) and the checker (aaep-replay check)
// apply one rule, with one code, to an irreversible tool call made before
// any confirmation for it (spec §4.3.1): over the same streams they flag the
// same events.
func TestListenerAndCheckerShareTheConfirmationRule(t *testing.T) {
	started := map[string]any{"type": "session.started"}
	tool := func(name, call string, irreversible bool, risk string) map[string]any {
		m := map[string]any{"type": "tool.invoked", "tool": name, "irreversible": irreversible, "risk_level": risk}
		if call != "" {
			m["tool_call_id"] = call
		}
		return m
	}
	confirm := func(token, toolName, call string) map[string]any {
		m := map[string]any{"type": "awaiting.confirmation", "reply_token": "rpl_" + token, "action": "Move the money",
			"timeout_seconds": 60, "default_decision": "reject", "irreversible": true, "risk_level": "high"}
		if toolName != "" {
			m["tool"] = toolName
		}
		if call != "" {
			m["tool_call_id"] = call
		}
		return m
	}
	reversible := func(m map[string]any) map[string]any {
		m["irreversible"], m["risk_level"] = false, "low"
		return m
	}
	tests := []struct {
		name  string
		first int64 // sequence number of the first event
		evs   []map[string]any
		want  []int // indexes of the events the rule flags
	}{
		{"no confirmation", 0, []map[string]any{started, tool("wipe", "", true, "high")}, []int{1}},
		{"no confirmation, low risk", 0, []map[string]any{started, tool("rename", "", true, "low")}, []int{1}},
		{"confirmed first", 0, []map[string]any{started, confirm("a", "", ""), tool("wipe", "", true, "high")}, nil},
		{"confirmed by call id", 0, []map[string]any{started, confirm("a", "", "c1"), tool("wipe", "c1", true, "high")}, nil},
		{"a confirmation of another tool", 0, []map[string]any{started, confirm("a", "send_mail", ""), tool("wipe", "", true, "high")}, []int{2}},
		{"deployed order, then the same call again", 0, []map[string]any{started, tool("wipe", "", true, "high"),
			confirm("a", "wipe", ""), tool("wipe", "", true, "high")}, []int{1, 3}},
		{"a harmless call does not use a harmless confirmation up", 0, []map[string]any{started, reversible(confirm("a", "", "")),
			tool("read", "", false, "low"), tool("wipe", "", true, "high")}, nil},
		{"the call after an irreversible confirmation that names none is its action", 0, []map[string]any{started, confirm("a", "", ""),
			tool("read", "", false, "low"), tool("wipe", "", true, "high")}, []int{3}},
		{"joined mid-way", 5, []map[string]any{tool("wipe", "", true, "high"), tool("wipe", "", true, "high")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var jsonl bytes.Buffer
			at := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
			for i, m := range tt.evs {
				ev := map[string]any{"@context": "https://aaep-protocol.org/context/v1",
					"event_id": fmt.Sprintf("evt_rule%04d", i), "session_id": "sess_rule",
					"timestamp": at.Add(time.Duration(i) * time.Second).Format(time.RFC3339),
					"producer":  map[string]any{"agent_id": "agent"}, "sequence_number": tt.first + int64(i),
					"summary_normal": "Something happens."}
				for k, v := range m {
					ev[k] = v
				}
				ev["type"] = "aaep:agent." + m["type"].(string)
				b, _ := json.Marshal(ev)
				jsonl.Write(append(b, '\n'))
			}
			checked, flagged := flagBoth(t, &jsonl)
			var want []string
			for _, i := range tt.want {
				want = append(want, fmt.Sprintf("evt_rule%04d", i))
			}
			if !slices.Equal(checked, want) {
				t.Errorf("checker flagged %v, want %v", checked, want)
			}
			if !slices.Equal(flagged, want) {
				t.Errorf("listener flagged %v, want %v", flagged, want)
			}
		})
	}
}

// flagBoth runs the checker and the engine over the capture in src and
// returns the event IDs each flags with RuleUnconfirmedIrreversible.
func flagBoth(t *testing.T, src io.Reader) (checked, flagged []string) {
	t.Helper()
	at := time.Date(2026, 6, 30, 14, 22, 10, 0, time.UTC)
	r, err := NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := &ruleOutput{code: protocol.RuleUnconfirmedIrreversible}
	eng := session.New(session.Config{}, out)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		st := c.Check(rec)
		for _, v := range st.Violations {
			if v.Rule == protocol.RuleUnconfirmedIrreversible {
				checked = append(checked, v.EventID)
			}
		}
		if st.Event != nil {
			eng.Handle(st.Event, at)
		}
	}
	eng.Flush(at)
	return checked, out.flagged
}

// Over every capture of the checker's corpus, the two flag the same events.
func TestListenerAndCheckerAgreeOnTheCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.aaep")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	flaggedAny := false
	for _, f := range files {
		src, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		checked, flagged := flagBoth(t, src)
		src.Close()
		if !slices.Equal(checked, flagged) {
			t.Errorf("%s: checker flagged %v, listener %v", filepath.Base(f), checked, flagged)
		}
		flaggedAny = flaggedAny || len(checked) > 0
	}
	if !flaggedAny {
		t.Error("no capture of the corpus breaks the rule; the test proves nothing")
	}
}
