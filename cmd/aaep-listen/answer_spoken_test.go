package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// The demo agent's answer, sentence by sentence (demo/scenarios/happy.json).
var demoAnswer = []string{
	"Tomorrow will be mostly sunny in Lisbon.",
	"Expect a high of 24 degrees, with a light north wind in the afternoon.",
	"You can leave the umbrella at home.",
	"Finished: Answered: tomorrow will be sunny in Lisbon.",
}

// Speech pacing may leave progress chatter out to keep up, never the agent's
// answer nor its end, whatever the pace: every sentence reaches a real
// speech-dispatcher, and a count of what was left out says what it was.
func TestAnswerAlwaysSpokenRealDaemon(t *testing.T) {
	t.Parallel()
	lag := filepath.Join(t.TempDir(), "announce.json")
	if err := os.WriteFile(lag, []byte(`{"max_lag_seconds":30}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"natural speed", nil},
		{"half speed", []string{"--demo-speed", "0.5"}},
		{"max_lag_seconds 30", []string{"--config", lag}},
		{"pace 400 wpm", []string{"--pace-wpm", "400"}},
		{"critical prompt following", []string{"--demo-speed", "0", "--demo-scenarios", "happy,confirm", "--auto-reply", "reject"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := speechdtest.Start(t, "")
			args := append([]string{"--plain", "--no-sign", "--speech", "speechd", "--demo", "--demo-scenarios", "happy"}, tc.args...)
			r := startListenerWith(t, []string{"SPEECHD_ADDRESS=" + d.Address()}, args...)
			r.stdin.Close()
			r.wait(t)
			want := spokenWords(demoAnswer[len(demoAnswer)-1])
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(spokenWords(strings.Join(d.Lines(), " ")), want) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			spoken := d.Lines()
			flat := spokenWords(strings.Join(spoken, " "))
			for _, s := range demoAnswer {
				if !strings.Contains(flat, spokenWords(s)) {
					t.Errorf("%q was never spoken\nspoken: %q\noutput:\n%s", s, spoken, r.stdout())
				}
			}
			for _, s := range spoken {
				if strings.Contains(s, "skipped") && othersSkipped.MatchString(s) {
					t.Errorf("%q does not say what was skipped", s)
				}
			}
		})
	}
}

// othersSkipped matches a count of skipped announcements that does not say what they were.
var othersSkipped = regexp.MustCompile(`\d+ others? skipped`)
