package producer

import (
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// TestUrgencyOfCritical holds the producer to the one list of critical
// types: it sends urgency critical for exactly those.
func TestUrgencyOfCritical(t *testing.T) {
	for _, typ := range protocol.CoreTypes {
		if got, want := urgencyOf(typ) == protocol.UrgencyCritical, protocol.CriticalType(typ); got != want {
			t.Errorf("urgencyOf(%q) = %q; critical by type: %v", typ, urgencyOf(typ), want)
		}
	}
}
