package conform

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/transport"
)

// A producer that answers the handshake and then sends no event at all,
// never ending its sessions, gives no test anything to judge: the run ends
// in bounded time, no test passes without evidence (the frames it judged),
// and no claim is made.
func TestAttackProducerSilentPassesNothing(t *testing.T) {
	t.Parallel()
	first := conformScenarios(t)[0]
	first.Steps = first.Steps[:1] // the session's start, then nothing
	var rep *Report
	synctest.Test(t, func(t *testing.T) {
		url, client := serveMem(t, producer.Options{Speed: 1, Scenarios: []producer.Scenario{first}})
		o := ProducerOptions{Endpoint: url, Level: 3, Fast: true}
		o.Transport.SSE.HTTPClient = client
		var err error
		if rep, err = TestProducer(t.Context(), o); err != nil {
			t.Fatalf("the run ended in an error instead of a report: %v", err)
		}
	})
	if rep == nil {
		t.FailNow()
	}
	// What this producer never sends: a test about it has nothing to judge.
	nothing := []string{PStateChanges, PToolBracketing, PNoSecrets, PCoalescing, PFilters}
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

// floodConn is a producer's connection that sends 1 MiB messages, the
// largest a transport takes, without end; it counts what it sent.
type floodConn struct {
	frame []byte
	sent  int64
}

func (c *floodConn) Recv(ctx context.Context) (transport.Frame, error) {
	if c.sent > 4*maxKeptBytes {
		return transport.Frame{}, errors.New("the suite kept reading past four times its budget")
	}
	c.sent += int64(len(c.frame))
	return transport.Frame{Data: c.frame}, nil
}
func (c *floodConn) Send(context.Context, []byte) error { return nil }
func (c *floodConn) Close() error                       { return nil }

// A producer that floods a subscription with the largest messages is cut
// off when what the subscription keeps reaches its byte budget, not only
// its message count: memory stays bounded.
func TestAttackProducerFloodBoundsBytes(t *testing.T) {
	t.Parallel()
	frame := []byte(`{"type":"aaep:agent.output.streaming","x":"` + strings.Repeat("a", transport.DefaultMaxFrameBytes-64) + `"}`)
	c := &floodConn{frame: frame}
	s := &psub{name: "flood", conn: c, changed: make(chan struct{})}
	s.read(context.Background())
	_, ended := s.snapshot()
	if !ended || !errors.Is(s.endErr, errTooMany) {
		t.Fatalf("the subscription ended %v with %v, want the flood cut off", ended, s.endErr)
	}
	kept := 0
	fs, _ := s.snapshot()
	for _, f := range fs {
		kept += len(f.data)
	}
	if kept > maxKeptBytes+transport.DefaultMaxFrameBytes {
		t.Errorf("kept %d bytes, more than the budget of %d", kept, maxKeptBytes)
	}
	t.Logf("kept %d messages, %d bytes, of %d sent", len(fs), kept, c.sent)
}
