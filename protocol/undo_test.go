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
