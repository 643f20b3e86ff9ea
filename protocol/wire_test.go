package protocol

import (
	"slices"
	"testing"
)

func TestCriticalType(t *testing.T) {
	critical := map[string]bool{
		TypeSessionErrored: true, TypeAwaitingConfirmation: true, TypeAwaitingClarify: true, TypeHandoffRequested: true,
	}
	for _, typ := range append(slices.Clone(CoreTypes), "aaep:agent.unknown", "", "x-vendor:alert") {
		want := critical[typ]
		if got := CriticalType(typ); got != want {
			t.Errorf("CriticalType(%q) = %v, want %v", typ, got, want)
		}
		full := "https://aaep-protocol.org/types/" + typ[min(len(typ), len("aaep:")):]
		if typ != "" && typ[:min(len(typ), 5)] == "aaep:" {
			if got := CriticalType(full); got != want {
				t.Errorf("CriticalType(%q) = %v, want %v", full, got, want)
			}
		}
		ev := Event{Type: typ}
		if ev.IsCritical() != want {
			t.Errorf("Event{Type: %q}.IsCritical() = %v, want %v", typ, ev.IsCritical(), want)
		}
	}
}
