package braille

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/session"
)

type answer struct {
	prompt int
	accept bool
}

func newTestSink(t *testing.T, b *brltty, flash time.Duration) (*Sink, chan answer) {
	t.Helper()
	c, err := Dial(context.Background(), b.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	answers := make(chan answer, 4)
	s, err := NewSink(context.Background(), c, Config{FlashTime: flash, OnAnswer: func(n int, accept bool) { answers <- answer{n, accept} },
		OnError: func(err error) { t.Logf("sink: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, answers
}

func prefix(p string) func(string) bool {
	return func(s string) bool { return strings.HasPrefix(s, p) }
}

func TestSinkFlashPansAndLeaves(t *testing.T) {
	b := startBrltty(t, 20)
	s, _ := newTestSink(t, b, 700*time.Millisecond)
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "started", Text: "Agent Ada\tstarted\nthe nightly build."})
	b.waitVisual(t, "the first window", prefix("Agent Ada started th"))
	b.press(t, "FWINRT")
	b.waitVisual(t, "the second window", prefix("e nightly build."))
	b.press(t, "FWINLT")
	b.waitVisual(t, "the first window again", prefix("Agent Ada started th"))
	// After the flash time the display goes back to BRLTTY: its own screen
	// comes back once it redraws, which a key of its own makes it do.
	time.Sleep(time.Second)
	b.press(t, "HOME")
	b.waitVisual(t, "BRLTTY's own screen", prefix("no screen"))
}

func TestSinkPromptAnsweredByRoutingKey(t *testing.T) {
	b := startBrltty(t, 20)
	s, answers := newTestSink(t, b, 300*time.Millisecond)
	prompt := &session.Prompt{Number: 2}
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Delete files?", Prompt: prompt})
	b.waitVisual(t, "the prompt", prefix("#2 Delete files? acc"))
	// Critical prompts stay past the flash time, and other keys do not dismiss them.
	time.Sleep(500 * time.Millisecond)
	b.press(t, "LNDN")
	b.press(t, "FWINRT")
	b.waitVisual(t, "the prompt's second window", prefix("ept reject"))
	b.press(t, "ROUTE 5") // over "reject"
	waitAnswer(t, answers, answer{2, false})
	time.Sleep(200 * time.Millisecond)
	b.press(t, "HOME")
	b.waitVisual(t, "the prompt gone", prefix("no screen"))

	// A second prompt, accepted on its first window; a flash queued behind it waits.
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Run it?", Prompt: &session.Prompt{Number: 3}})
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "tool", Text: "Tool ls finished."})
	b.waitVisual(t, "the second prompt", prefix("#3 Run it? accept re"))
	b.press(t, "ROUTE 12")
	waitAnswer(t, answers, answer{3, true})
	b.waitVisual(t, "the queued flash", prefix("Tool ls finished."))
}

func TestSinkClearsPromptAnsweredElsewhere(t *testing.T) {
	b := startBrltty(t, 20)
	s, _ := newTestSink(t, b, 300*time.Millisecond)
	p := &session.Prompt{Number: 1}
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Go?", Prompt: p})
	b.waitVisual(t, "the prompt", prefix("#1 Go? accept reject"))
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "reply-sent", Text: "Accepted 1.", Prompt: p})
	b.waitVisual(t, "the reply", prefix("Accepted 1."))
}

func TestLayout(t *testing.T) {
	m := layout(announce.Announcement{Text: "e\u0301e\u0301\u202eabc", RTL: true}, 7)
	if got := strings.Join(m.cells, ""); got != "(rtl) e\u0301e\u0301abc" {
		t.Fatalf("cells %q", got)
	}
	// "(rtl) " is 6 cells; the next cluster takes 2 cells and must not be split.
	if w, _ := m.window(0); w != "(rtl) " {
		t.Fatalf("first window %q", w)
	}
	if w, _ := m.window(1); w != "e\u0301e\u0301abc" || len(m.pages) != 2 {
		t.Fatalf("second window %q", w)
	}
}

func waitAnswer(t *testing.T, answers chan answer, want answer) {
	t.Helper()
	select {
	case a := <-answers:
		if a != want {
			t.Fatalf("answer %+v, want %+v", a, want)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no answer from the routing key")
	}
}
