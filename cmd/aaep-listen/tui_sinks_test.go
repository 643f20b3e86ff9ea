package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/braille/brltest"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// The TUI is never the only channel: with --tui, speech-dispatcher speaks
// what the view shows and the braille display shows the prompt, and the
// answer given in the view is spoken too.
func TestTUIAlongsideSpeechAndBraille(t *testing.T) {
	t.Parallel()
	speechdtest.Need(t, "speech-dispatcher")
	bin := buildListener(t)
	sd := speechdtest.Start(t, "")
	brl := brltest.Start(t, 40, "")
	tt := startTUITerminal(t, "SPEECHD_ADDRESS="+sd.Address()+" NO_COLOR=1 TERM=xterm-256color "+bin+
		" --tui --speech auto --braille auto --brlapi-host "+brl.Host+" --demo --demo-speed 0 --answer-after 0 --demo-scenarios confirm") // the key right away: not about --answer-after
	waitFor(t, tt.screen, "CONFIRMATION NEEDED, prompt 1 from Demo Assistant", 30*time.Second)
	brl.WaitVisual(t, "the prompt", func(s string) bool { return strings.HasPrefix(s, "#1 accept reject ") })
	spoken := waitSpoken(t, sd, "Confirmation needed")
	tt.keys("r")
	tt.quitAtEnd()
	all := waitFor(t, tt.all, "EXITED rc=0", 30*time.Second)
	for _, want := range []string{"speech: speech-dispatcher at unix_socket:", "braille: BRLTTY display.", "Sent your answer to prompt 1: reject."} {
		if !strings.Contains(all, want) {
			t.Errorf("the view lacks %q:\n%s", want, all)
		}
	}
	// What the view shows is spoken too: the prompt, the answer sent from
	// the view, and how the session ended. (Speech may add its own notes,
	// such as how many lines an interruption skipped.)
	spoken = waitSpoken(t, sd, "Sent your answer to prompt 1")
	spoken = waitSpoken(t, sd, "Finished: Nothing was done")
	shown := spokenWords(all)
	for _, want := range []string{"Confirmation needed, prompt 1", "Sent your answer to prompt 1: reject.", "Finished: Nothing was done"} {
		if !strings.Contains(shown, spokenWords(want)) {
			t.Errorf("the view never showed %q:\n%s", want, all)
		}
	}
	t.Logf("spoken: %q", spoken)
}

// waitSpoken waits until a text containing want was spoken, and returns all spoken.
func waitSpoken(t *testing.T, d *speechdtest.Daemon, want string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		lines := d.Lines()
		if strings.Contains(spokenWords(strings.Join(lines, "\n")), spokenWords(want)) {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q was never spoken; spoken: %q", want, lines)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// spokenWords keeps letters and digits, one space between words: the capture
// module turns punctuation into spaces.
func spokenWords(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}), " ")
}
