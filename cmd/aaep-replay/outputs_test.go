package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/braille/brltest"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// play --speech and --braille drive a real speech-dispatcher and a real
// BRLTTY display, as aaep-listen does: the prompt of the capture is spoken
// and shown in braille.
func TestPlaySpeechBraille(t *testing.T) {
	speechdtest.Need(t, "speech-dispatcher")
	speechdtest.Need(t, "brltty")
	sd := speechdtest.Start(t, "")
	brl := brltest.Start(t, 40, "")
	t.Setenv("SPEECHD_ADDRESS", sd.Address())
	t.Setenv("BRLAPI_HOST", brl.Host)
	t.Setenv("BRLAPI_AUTH", "none")
	tio, _, out, errOut := term.Test()
	// Jump to the first prompt and stay paused there: standard input stays
	// open, so no end of the commands lets playing go on.
	pr, pw := io.Pipe()
	defer pw.Close()
	tio.In = pr
	go func() { _, _ = io.WriteString(pw, "next critical\n") }()
	done := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		done <- run(ctx, []string{"play", "--paused", "--speed", "0", "--speech", "speechd", "--braille", "auto", corpus + "after-reject.aaep"}, tio)
	}()
	brl.WaitVisual(t, "the prompt", func(s string) bool { return strings.Contains(s, "accept") && strings.Contains(s, "reject") })
	// Each new line spoken, until the prompt is: the daemon's own wait.
	var said []string
	for n := 1; ; n++ {
		said = sd.WaitSpoken(t, n, 20*time.Second)
		if len(said) < n || strings.Contains(strings.Join(said, "\n"), "Transfer $500") {
			break
		}
	}
	spoken := strings.Join(said, "\n")
	if !strings.Contains(spoken, "Transfer $500") {
		t.Errorf("the prompt was not spoken; spoken:\n%s", spoken)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, errOut)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("play did not stop")
	}
	if !strings.Contains(out.String(), "braille: BRLTTY display.") {
		t.Errorf("the output does not say braille is on:\n%s", out.String())
	}
}
