package braille

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/braille/brltest"
	"github.com/aaep-term/aaep-term/session"
)

// When BRLTTY restarts, the sink dials it again: a prompt that came while it
// was away is shown, and can still be answered with a routing key.
func TestSinkReconnectsWhenBrlttyRestarts(t *testing.T) {
	t.Parallel()
	b := brltest.Start(t, 20, "")
	r := newRedialing(t, b, 200*time.Millisecond)
	s, answers, lostN, backN, redials := r.s, r.answers, &r.lost, &r.back, &r.redials
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "started", Text: "Agent Ada started."})
	b.WaitVisual(t, "the first flash", prefix("Agent Ada started."))

	b.Stop()
	waitUntil(t, "the loss noticed", func() bool { return lostN.Load() > 0 })
	// While BRLTTY is away, announcing never blocks, and a prompt is kept.
	for i := 0; i < 100; i++ {
		s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "tool", Text: "chatter"})
	}
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Delete files?", Prompt: &session.Prompt{Number: 4}})
	// Failed redials, RedialEvery apart, for longer than the first flash's
	// time: the prompt outlives the flash it replaced.
	tried := redials.Load()
	waitUntil(t, "failed redials", func() bool { return redials.Load() >= tried+6 })

	b.Restart(t)
	waitUntil(t, "the display back", func() bool { return backN.Load() == 1 })
	b.WaitVisual(t, "the prompt kept while BRLTTY was away", prefix("#4 accept reject"))
	pressForAnswer(t, b, "ROUTE 4", answers, answer{4, true}) // over "accept"
	if n := lostN.Load(); n != 1 {
		t.Errorf("the loss was told %d times, want once", n)
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The sink tells a Pacer when the display is free: busy while a flash is
// shown, free when it is gone, and free while only a prompt waits.
func TestSinkSpeakingFollowsTheDisplay(t *testing.T) {
	b := brltest.Start(t, 20, "")
	s, _ := newTestSink(t, b, 700*time.Millisecond)
	if s.Speaking() {
		t.Fatal("busy before anything was shown")
	}
	s.Announce(announce.Announcement{Priority: announce.Normal, Kind: "started", Text: "Agent Ada started."})
	waitUntil(t, "busy with the flash", s.Speaking)
	b.WaitVisual(t, "the flash", prefix("Agent Ada started."))
	waitUntil(t, "free after the flash", func() bool { return !s.Speaking() })
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Go?", Prompt: &session.Prompt{Number: 1}})
	b.WaitVisual(t, "the prompt", prefix("#1 accept reject Go?"))
	if s.Speaking() {
		t.Fatal("a prompt waiting for its answer holds the display as busy")
	}
}

// A BRLTTY that is starting answers BrlAPI before its braille driver is up,
// with a display of 0×0 cells, and loses what is written then. The sink
// comes back only once there is a display: a prompt kept while BRLTTY was
// away is shown then (before, it was written into the starting BRLTTY and
// never seen: TestSinkReconnectsWhenBrlttyRestarts failed so on a busy
// machine).
func TestSinkWaitsForTheDisplayAfterRestart(t *testing.T) {
	t.Parallel()
	b := brltest.Start(t, 20, "")
	r := newRedialing(t, b, 100*time.Millisecond)
	s, lostN, backN, redials := r.s, &r.lost, &r.back, &r.redials
	b.Stop()
	waitUntil(t, "the loss noticed", func() bool { return lostN.Load() > 0 })
	s.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Text: "Delete files?", Prompt: &session.Prompt{Number: 4}})
	release := b.RestartHeld(t)
	// Redials made while BrlAPI answers and no display is up yet.
	tried := redials.Load()
	waitUntil(t, "redials to a BRLTTY with no display", func() bool { return redials.Load() >= tried+3 || backN.Load() > 0 })
	if n := backN.Load(); n != 0 {
		t.Fatalf("the display was told back while BRLTTY had none (%d redials)", redials.Load()-tried)
	}
	release()
	waitUntil(t, "the display back", func() bool { return backN.Load() == 1 })
	b.WaitVisual(t, "the prompt kept while BRLTTY was away", prefix("#4 accept reject"))
}

// redialing is a sink on a display that dials BRLTTY again when it is
// lost, counting the losses told, the returns and the redials, with the
// answers its routing keys give.
type redialing struct {
	s                   *Sink
	lost, back, redials atomic.Int32
	answers             chan answer
}

// newRedialing starts a redialing sink on b, trying again every every; it
// is closed when t ends.
func newRedialing(t *testing.T, b *brltest.Display, every time.Duration) *redialing {
	t.Helper()
	c, err := Dial(context.Background(), Options{Host: b.Host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &redialing{answers: make(chan answer, 2)}
	r.s, err = NewSink(context.Background(), c, Config{FlashTime: time.Second, RedialEvery: every,
		Redial: func(ctx context.Context) (*Client, error) {
			r.redials.Add(1)
			return Dial(ctx, Options{Host: b.Host})
		},
		OnError:     func(error) { r.lost.Add(1) },
		OnReconnect: func() { r.back.Add(1) },
		OnAnswer:    func(n int, accept bool) { r.answers <- answer{n, accept} }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.s.Close() })
	return r
}
