package protocol

import "testing"

// Every reading of reversibility comes from Event.Undo; a contradiction or
// an unknown value is read as "cannot be undone".
func TestUndo(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		flag *bool
		rev  string
		want Undo
	}{
		{"nothing said", nil, "", UndoUnsaid},
		{"flag true", &yes, "", UndoCannot},
		{"flag false", &no, "", UndoReversible},
		{"reversible", nil, "reversible", UndoReversible},
		{"with effort", nil, "reversible_with_effort", UndoWithEffort},
		{"irreversible", nil, "irreversible", UndoCannot},
		{"flag false, with effort", &no, "reversible_with_effort", UndoWithEffort},
		{"flag false, irreversible", &no, "irreversible", UndoCannot},
		{"flag true, reversible", &yes, "reversible", UndoCannot},
		{"flag true, with effort", &yes, "reversible_with_effort", UndoCannot},
		{"unknown value", nil, "mostly", UndoCannot},
		{"unknown value, flag false", &no, "Reversible", UndoCannot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := Event{Irreversible: tt.flag, Reversibility: tt.rev}
			if got := ev.Undo(); got != tt.want {
				t.Errorf("Undo() = %d, want %d", got, tt.want)
			}
		})
	}
}

// A field given twice is a contradiction, whichever value the decoder kept.
func TestUndoFieldTwice(t *testing.T) {
	const head = `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.awaiting.confirmation",` +
		`"event_id":"evt_1","session_id":"sess_1","sequence_number":1,"timestamp":"2026-06-30T14:22:20.014Z",` +
		`"producer":{"agent_id":"a"},"urgency":"critical","action":"x","consequence":"y","reply_token":"rpl_1",` +
		`"timeout_seconds":30,"default_decision":"reject",`
	for _, tc := range []struct {
		tail string
		want Undo
	}{
		{`"irreversible":false}`, UndoReversible},
		{`"irreversible":true,"irreversible":false}`, UndoCannot},
		{`"irreversible":false,"irreversible":false}`, UndoCannot},
		{`"reversibility":"irreversible","reversibility":"reversible"}`, UndoCannot},
		{`"irreversible":false,"reversibility":"reversible"}`, UndoReversible},
	} {
		var d Decoder
		ev, err := d.Decode([]byte(head + tc.tail))
		if ev == nil {
			t.Fatalf("%s: %v", tc.tail, err)
		}
		if got := ev.Undo(); got != tc.want {
			t.Errorf("%s: Undo() = %d, want %d", tc.tail, got, tc.want)
		}
	}
}
