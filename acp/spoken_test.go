package acp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/speech"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// spoken starts a real speech-dispatcher for t, private to it, and
// returns it with the speech sink that speaks through it.
func spoken(t *testing.T) (*speechdtest.Daemon, []announce.Sink) {
	t.Helper()
	speechdtest.Need(t, "speech-dispatcher")
	sd := speechdtest.Start(t, "")
	sp, err := speech.NewSpeechd(context.Background(), speech.Address{Network: "unix", Addr: sd.Socket}, "user:aaep-term:acp-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	return sd, []announce.Sink{&speech.Sink{Backend: sp}}
}

// waitSpoken waits until speech-dispatcher said each of wants, in order,
// each within one text; the test's deadline is the only time limit (the
// daemon's module writes a file, read again as it grows).
func waitSpoken(t *testing.T, sd *speechdtest.Daemon, wants ...string) {
	t.Helper()
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(5 * time.Minute)
	}
	for {
		said := sd.Lines()
		rest := wants
		for _, l := range said {
			if len(rest) > 0 && strings.Contains(l, rest[0]) {
				rest = rest[1:]
			}
		}
		if len(rest) == 0 {
			return
		}
		if time.Now().After(deadline.Add(-5 * time.Second)) {
			t.Fatalf("speech never said %q (in order); it said:\n%s", rest[0], strings.Join(said, "\n"))
		}
		sd.WaitSpoken(t, len(said)+1, time.Second) // returns when a text more was said, or after a second
	}
}
