package main

import (
	"strings"
	"testing"
)

// --demo-speed goes the way aaep-replay --speed goes.
func TestDemoPace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ speed, pace float64 }{
		{1, 1}, {2, 0.5}, {0.5, 2}, {4, 0.25}, {0, 0},
	} {
		if got := demoPace(tc.speed); got != tc.pace {
			t.Errorf("demoPace(%v) = %v, want %v", tc.speed, got, tc.pace)
		}
	}
}

// With standard input closed nobody can answer: the demo at --demo-speed 0
// does not sit out each prompt's full timeout (two minutes). The test
// waits for the process to exit; the go test timeout is the only clock.
// The listener renegotiates (it can no longer answer), and the producer
// applies its defaults through the protocol; nothing is answered for the
// user.
func TestDemoWithStdinClosedEnds(t *testing.T) {
	t.Parallel()
	r := startListener(t, "--plain", "--no-sign", "--demo", "--demo-speed", "0", "--demo-scenarios", "confirm,clarify")
	r.stdin.Close()
	if err := <-r.done; err != nil {
		t.Fatalf("listener: %v\n%s\n%s", err, r.stdout(), r.stderr())
	}
	out := r.stdout()
	for _, want := range []string{
		"Standard input is closed, so nobody can answer here: asking the producer to apply each prompt's default decision at once.",
		"The producer accepted the new terms",
		"No go-ahead; the payment is off.",
		"Booking for 8 in the evening.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Sent your answer") || strings.Contains(out, "accepts prompt") {
		t.Errorf("something answered for the user:\n%s", out)
	}
}
