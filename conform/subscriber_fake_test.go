package conform

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// fakeEnv names the fault the test binary, run as a subscriber, commits.
const fakeEnv = "AAEP_CONFORM_FAKE_SUBSCRIBER"

// fakeCommand is the --exec line that runs the test binary as a subscriber
// committing fault mode; the mode goes in its environment through env(1),
// not through this process's, so the tests using it may run in parallel.
func fakeCommand(mode string) string {
	return "env " + fakeEnv + "=" + mode + " " + os.Args[0] + " {endpoint}"
}

// runFake runs the test binary as a fake subscriber when the environment
// says so (TestMain, producer_test.go), and reports whether it did.
func runFake() bool {
	mode := os.Getenv(fakeEnv)
	if mode == "" {
		return false
	}
	if err := fakeSubscriber(os.Args[1], mode); err != nil {
		fmt.Fprintln(os.Stderr, "fake subscriber:", err)
		os.Exit(1)
	}
	return true
}

// A subscriber that floods the suite is counted, not kept: the suite ends,
// keeps at most maxHeard messages, and says how many more came.
func TestSubscriberFlood(t *testing.T) {
	t.Parallel()
	var rep *Report
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		o := SubscriberOptions{Level: 3, Only: []string{idSubConnect, idSubLowerTerms}, Window: time.Second, Patience: 3 * time.Second} // three times Patience to open the stream after its storm
		o.listener, o.run = memSubscriber(t, "flood")
		var err error
		if rep, err = TestSubscriber(ctx, o); err != nil {
			t.Fatal(err)
		}
	})
	if rep == nil {
		t.FailNow()
	}
	if len(rep.Results) != 2 {
		t.Fatalf("%d results, want the 2 asked for", len(rep.Results))
	}
	session := rep.Results[0].Evidence
	if len(session) > 4*maxHeard+1 {
		t.Errorf("the session kept %d entries, more than %d", len(session), 4*maxHeard+1)
	}
	if last := session[len(session)-1].Note; !strings.Contains(last, "more messages from the subscriber were counted, not kept") {
		t.Errorf("the session does not end by counting what it dropped: %q", last)
	}
	if r := rep.Results[1]; r.Status != Fail || !strings.Contains(r.Detail, "999 subscription.renegotiate messages") ||
		!strings.Contains(r.Detail, "more messages, counted, not kept") {
		t.Errorf("%s: %s, %s; want a failure counting the storm", r.ID, r.Status, r.Detail)
	}
}
