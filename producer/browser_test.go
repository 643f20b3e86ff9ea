package producer

import (
	"testing"

	"github.com/aaep-term/aaep-term/internal/browsertest"
)

// A browser subscriber using EventSource.onmessage against the legacy
// layout's /events receives every event of the run.
func TestLegacyEventsReachOnmessage(t *testing.T) {
	p := New(Options{Scenarios: scenarios(t, "happy"), Logf: t.Logf})
	browsertest.Onmessage(t, p, 11, func() { p.Close() }) // the 11 events of the happy scenario
}
