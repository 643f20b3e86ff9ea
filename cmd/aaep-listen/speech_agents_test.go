package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// With two agents, speech says whose prompt it is: each confirmation is
// spoken after its agent's label (critical: always named), so a listener
// who only hears knows which agent asks.
func TestSpeechSaysWhoSpeaks(t *testing.T) {
	d := speechdtest.Start(t, "")
	_, urlA := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	_, urlB := serve(t, producer.Options{Scenarios: scenarios(t, "confirm")})
	r := startListenerEnv(t, []string{"SPEECHD_ADDRESS=" + d.Address()}, "--plain", "--no-time", "--speech", "auto", "bank="+urlA, "shop="+urlB)
	na, nb := r.numberOf(t, "bank"), r.numberOf(t, "shop")
	var spoken []string
	deadline := time.Now().Add(10 * time.Second)
	for !saidBy(spoken, "bank") || !saidBy(spoken, "shop") {
		if time.Now().After(deadline) {
			t.Fatalf("the prompts were not spoken with their agent: %q\n%s", spoken, r.stdout())
		}
		spoken = d.WaitSpoken(t, len(spoken)+1, 10*time.Second)
	}
	fmt.Fprintf(r.stdin, "reject %s\nreject %s\n", na, nb)
	r.wait(t)
}

// saidBy reports whether a confirmation was spoken after agent's name.
func saidBy(spoken []string, agent string) bool {
	for _, s := range spoken {
		if strings.HasPrefix(s, agent) && strings.Contains(s, "Confirmation needed") {
			return true
		}
	}
	return false
}
