package conform

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
)

// A producer that answers the handshake and then sends no event at all,
// never ending its sessions, gives no test anything to judge: the run ends
// in bounded time, no test passes without evidence (the frames it judged),
// and no claim is made.
func TestAttackProducerSilentPassesNothing(t *testing.T) {
	first := conformScenarios(t)[0]
	first.Steps = first.Steps[:1] // the session's start, then nothing
	p := producer.New(producer.Options{Speed: 1, Scenarios: []producer.Scenario{first}})
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := TestProducer(ctx, ProducerOptions{Endpoint: srv.URL, Level: 3, Fast: true})
	if err != nil {
		t.Logf("cannot test: %v", err)
		return
	}
	// What this producer never sends: a test about it has nothing to judge.
	nothing := []string{PStateChanges, PToolBracketing, PNoSecrets, PCoalescing}
	for _, r := range rep.Results {
		t.Logf("%s %s: %s (%d evidence)", r.Status, r.ID, r.Detail, len(r.Evidence))
		if r.Status == Pass && slices.Contains(nothing, r.ID) {
			t.Errorf("%s passed on nothing: %s", r.ID, r.Detail)
		}
	}
	if rep.Conforming() || rep.Claim() != "" {
		t.Errorf("a producer that sends nothing is claimed conformant: %q", rep.Claim())
	}
}
