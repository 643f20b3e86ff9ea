package producer

import (
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// Loop plays the scenarios again and again, each round as a new session
// (serve --demo --loop), and OnEnd is never told of an end.
func TestLoopPlaysAgain(t *testing.T) {
	t.Parallel()
	ended := make(chan struct{}, 1)
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), Loop: true, OnEnd: func() { ended <- struct{}{} }})
	s := open(t, srv.URL+protocol.PathLegacyEvents, "")
	seen := map[string]bool{}
	for len(seen) < 3 {
		ev := s.until(t, protocol.TypeSessionCompleted)
		id, _ := ev[len(ev)-1].decoded(t)["session_id"].(string)
		if seen[id] {
			t.Fatalf("session %s completed twice", id)
		}
		seen[id] = true
	}
	select {
	case <-ended:
		t.Fatal("OnEnd was told of an end while the scenarios loop")
	default:
	}
}

// OnEnd is told once the scenarios have played to their end.
func TestOnEndAfterTheRun(t *testing.T) {
	t.Parallel()
	ended := make(chan struct{})
	p, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), EndWhenDone: true, OnEnd: func() { close(ended) }})
	s := open(t, srv.URL+protocol.PathLegacyEvents, "")
	s.all(t)
	<-ended
	<-p.Done()
}
