package braille

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/braille/brltest"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/rivo/uniseg"
)

type answer struct {
	prompt int
	accept bool
}

func newTestSink(t *testing.T, b *brltest.Display, flash time.Duration) (*Sink, chan answer) {
	t.Helper()
	c, err := Dial(context.Background(), Options{Host: b.Host})
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
	b := brltest.Start(t, 20, "")
	s, _ := newTestSink(t, b, 700*time.Millisecond)
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "started", Text: "Agent Ada\tstarted\nthe nightly build."})
	b.WaitVisual(t, "the first window", prefix("Agent Ada started th"))
	pressUntil(t, b, "FWINRT", "the second window", prefix("e nightly build."))
	pressUntil(t, b, "FWINLT", "the first window again", prefix("Agent Ada started th"))
	// After the flash time the display goes back to BRLTTY: its own screen
	// comes back once it redraws, which a key of its own makes it do.
	waitUntil(t, "the flash time over", func() bool { return !s.Speaking() })
	b.Press(t, "HOME")
	b.WaitVisual(t, "BRLTTY's own screen", prefix("no screen"))
}

func TestSinkPromptAnsweredByRoutingKey(t *testing.T) {
	b := brltest.Start(t, 20, "")
	s, answers := newTestSink(t, b, 300*time.Millisecond)
	prompt := &session.Prompt{Number: 2}
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Delete files?", Prompt: prompt})
	b.WaitVisual(t, "the prompt", prefix("#2 accept reject Del"))
	// Critical prompts stay past the flash time, and other keys do not dismiss them.
	time.Sleep(500 * time.Millisecond)
	b.Press(t, "LNDN")
	pressUntil(t, b, "FWINRT", "the prompt's second window", prefix("ete files?"))
	b.Press(t, "FWINRT") // at the end: a prompt stays
	pressUntil(t, b, "FWINLT", "the prompt's first window", prefix("#2 accept reject Del"))
	b.Press(t, "ROUTE 18") // over the question: nothing
	// Over "reject":
	pressForAnswer(t, b, "ROUTE 11", answers, answer{2, false})
	// BRLTTY redraws its own screen at a key of its own; a key that came
	// while the sink still held the display went to the sink: press again.
	pressUntil(t, b, "HOME", "the prompt gone", prefix("no screen"))

	// A second prompt, accepted on its first window; a flash queued behind it waits.
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Run it?", Prompt: &session.Prompt{Number: 3}})
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "tool", Text: "Tool ls finished."})
	b.WaitVisual(t, "the second prompt", prefix("#3 accept reject Run"))
	pressForAnswer(t, b, "ROUTE 3", answers, answer{3, true})
	b.WaitVisual(t, "the queued flash", prefix("Tool ls finished."))
}

// Accepting a confirmation that cannot be undone takes two routing keys:
// accept shows the second step naming the action, no goes back to the
// prompt, yes sends (real BRLTTY). A reject stays one key.
func TestSinkSecondStepForWhatCannotBeUndone(t *testing.T) {
	b := brltest.Start(t, 40, "")
	c, err := Dial(context.Background(), Options{Host: b.Host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	answers := make(chan answer, 4)
	sure := make(chan int, 4)
	s, err := NewSink(context.Background(), c, Config{OnAnswer: func(n int, accept bool) { answers <- answer{n, accept} },
		OnSureAccept: func(n int) { sure <- n }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	yes := true
	ev := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, RiskLevel: "high", Irreversible: &yes, Action: "Pay 5 euros."}
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Pay 5 euros?",
		Prompt: &session.Prompt{Number: 1, Event: ev}})
	b.WaitVisual(t, "the prompt", prefix("#1 accept reject Pay"))
	b.Press(t, "ROUTE 4") // over "accept"
	b.WaitVisual(t, "the second step", prefix("#1 yes no Pay 5 euros, which cannot be"))
	b.Press(t, "ROUTE 7") // over "no"
	b.WaitVisual(t, "the prompt again", prefix("#1 accept reject Pay"))
	b.Press(t, "ROUTE 4")
	b.WaitVisual(t, "the second step again", prefix("#1 yes no "))
	b.Press(t, "ROUTE 4") // over "yes"
	select {
	case n := <-sure:
		if n != 1 {
			t.Fatalf("accepted prompt %d", n)
		}
	case a := <-answers:
		t.Fatalf("answered %+v in one step", a)
	case <-time.After(10 * time.Second):
		t.Fatal("yes sent nothing")
	}
	if len(answers) != 0 {
		t.Fatalf("also answered %+v", <-answers)
	}
}

func TestSinkClearsPromptAnsweredElsewhere(t *testing.T) {
	b := brltest.Start(t, 20, "")
	s, _ := newTestSink(t, b, 300*time.Millisecond)
	p := &session.Prompt{Number: 1}
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Go?", Prompt: p})
	b.WaitVisual(t, "the prompt", prefix("#1 accept reject Go?"))
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "reply-sent", Text: "Accepted 1.", Prompt: p})
	b.WaitVisual(t, "the reply", prefix("Accepted 1."))
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

// pressForAnswer presses key until the sink answers, at most four times:
// the vr driver drops a key now and then on a loaded machine, and a prompt
// answered once is forgotten, so a second press cannot answer twice.
func pressForAnswer(t *testing.T, b *brltest.Display, key string, answers chan answer, want answer) {
	t.Helper()
	for range 4 {
		b.Press(t, key)
		select {
		case a := <-answers:
			if a != want {
				t.Fatalf("answer %+v, want %+v", a, want)
			}
			return
		case <-time.After(2 * time.Second):
		}
	}
	t.Fatalf("no answer from %s, pressed four times", key)
}

// pressUntil presses key until the display shows what ok accepts, at most
// four times.
func pressUntil(t *testing.T, b *brltest.Display, key, what string, ok func(string) bool) {
	t.Helper()
	for range 4 {
		b.Press(t, key)
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
			if v := b.Visuals(); len(v) > 0 && ok(v[len(v)-1]) {
				return
			}
			time.Sleep(30 * time.Millisecond) // the display's texts are read again
		}
	}
	t.Fatalf("display never showed %s, %s pressed four times; it showed %q", what, key, b.Visuals())
}

// Yoruba tone marks, Arabic and Hebrew: no window ever splits a cluster.
func TestLayoutNeverSplitsGraphemes(t *testing.T) {
	for _, text := range []string{
		"Ẹ̀ kú àárọ̀, ṣé dáadáa ni? Ọ̀rọ̀ náà ti parí.",
		"\u2067مرحبًا بالعالم، اكتمل العمل.\u2069",
		"שָׁלוֹם עוֹלָם, הַמְּשִׂימָה הֻשְׁלְמָה.",
	} {
		for width := 3; width <= 12; width++ {
			m := layout(announce.Announcement{Text: text, RTL: true}, width)
			var all strings.Builder
			for p := range m.pages {
				w, _ := m.window(p)
				if n := len([]rune(w)); n > width && uniseg.GraphemeClusterCount(w) > 1 {
					t.Fatalf("width %d: window %q has %d cells", width, w, n)
				}
				all.WriteString(w)
			}
			whole := all.String()
			if want := strings.Join(m.cells, ""); whole != want {
				t.Fatalf("width %d: windows %q, want %q", width, whole, want)
			}
			if strings.ContainsAny(whole, "\u2067\u2069") {
				t.Fatalf("direction isolates reached the display: %q", whole)
			}
			sum := 0
			for p := range m.pages {
				w, _ := m.window(p)
				sum += uniseg.GraphemeClusterCount(w)
			}
			if sum != uniseg.GraphemeClusterCount(whole) {
				t.Fatalf("width %d: a window boundary split a cluster in %q", width, whole)
			}
		}
	}
}

// When BRLTTY goes away, announcing (even critical ones) never blocks.
func TestSinkSurvivesBrlttyGoingAway(t *testing.T) {
	t.Parallel()
	b := brltest.Start(t, 20, "")
	s, _ := newTestSink(t, b, time.Second)
	b.Stop()
	done := make(chan struct{})
	go func() {
		for i := 0; i < 200; i++ {
			s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "errored", Text: "Agent failed."})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Announce blocked after BRLTTY stopped")
	}
}
