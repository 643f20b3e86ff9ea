package speech

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// lineCounter stands for the line output: it counts what it is given.
type lineCounter struct {
	mu sync.Mutex
	n  int
}

func (l *lineCounter) Announce(announce.Announcement) error {
	l.mu.Lock()
	l.n++
	l.mu.Unlock()
	return nil
}

// floodDelivery is event i of a flood: tool calls, progress, states and
// output, with a critical error every criticalEvery events. Its summary names
// its number, "event i".
func floodDelivery(i, criticalEvery int, at time.Time) session.Delivery {
	ev := &protocol.Event{SessionID: "sess_flood", EventID: fmt.Sprintf("evt_%d", i),
		Producer: protocol.Producer{AgentID: "flood", AgentName: "Flood"}}
	switch {
	case i%criticalEvery == criticalEvery-1:
		ev.Type, ev.SummaryNormal = protocol.TypeSessionErrored, protocol.Text(fmt.Sprintf("Disk full, event %d.", i))
	case i%4 == 0:
		ev.Type, ev.Tool, ev.SummaryNormal = protocol.TypeToolInvoked, "search", protocol.Text(fmt.Sprintf("Searching, event %d.", i))
	case i%4 == 1:
		ev.Type, ev.Tool, ev.Status, ev.SummaryNormal = protocol.TypeToolCompleted, "search", "success", protocol.Text(fmt.Sprintf("Found it, event %d.", i))
	case i%4 == 2:
		ev.Type, ev.Urgency = protocol.TypeProgressUpdated, protocol.UrgencyBackground
		ev.SummaryNormal = protocol.Text(fmt.Sprintf("Step, event %d.", i))
	default:
		ev.Type, ev.Urgency, ev.ToState = protocol.TypeStateChanged, protocol.UrgencyBackground, "working"
		ev.SummaryNormal = protocol.Text(fmt.Sprintf("Working, event %d.", i))
	}
	return session.Delivery{Kind: session.KindEvent, At: at, Event: ev}
}

var eventNumber = regexp.MustCompile(`event (\d+)`)

// Must show, against the real speech-dispatcher: 2,000 events a second for
// 10 seconds through the announcer into a Pacer at 180 words a minute, in
// front of a module that takes as long as a 180-words-a-minute voice. Every
// text it begins names an event at most 5 seconds old, every critical error
// is spoken, and the line output got every event.
//
// The voice is real time: the module sleeps for each text's words, and a
// critical text kills the one being said, as speech-dispatcher does with
// its synthesizer. The virtual-clock twin is in announce/pace_test.go.
func TestPacedFloodStaysWithinFiveSecondsRealDaemon(t *testing.T) {
	t.Parallel() // a daemon of its own; the flood's ten seconds are real time
	pacedFlood(t, 180, 180, 5*time.Second)
}

// A voice a third slower than the pace the user gave: the Pacer waits for
// the daemon's end events as well as its own estimate and learns how slow
// the voice is, so the lag stays bounded (4 to 5.6 s seen here) instead of
// growing in speech-dispatcher's queue (about 15 s after 10 s of flood
// when the Pacer cannot hear the end events).
func TestPacedFloodWithASlowerVoiceRealDaemon(t *testing.T) {
	t.Parallel() // a daemon of its own; the flood's ten seconds are real time
	pacedFlood(t, 120, 180, 8*time.Second)
}

// pacedFlood floods a Pacer at pace wpm in front of a voice at voice wpm and
// fails when a spoken text tells of an event more than bound old.
func pacedFlood(t *testing.T, voice, wpm int, bound time.Duration) {
	const (
		rate          = 2000
		seconds       = 10
		criticalEvery = 5000 // an error every 2.5 seconds
	)
	d := speechdtest.StartSpeaking(t, voice)
	sink := &Sink{Backend: newBackend(t, d), Timeout: 10 * time.Second}
	pacer := announce.NewPacer(announce.PaceConfig{WPM: wpm, OnError: func(err error) { t.Errorf("speech: %v", err) }}, sink)
	defer pacer.Close()
	lines := &lineCounter{}
	a := announce.New(announce.Config{}, lines, pacer)

	total := rate * seconds
	sent := make([]time.Time, total) // when each event reached the announcer
	start := time.Now()
	for i := 0; i < total; {
		// Send what is due by now, in bursts, as a flooding producer would.
		due := int(time.Since(start) * rate / time.Second)
		for ; i < total && i <= due; i++ {
			now := time.Now()
			sent[i] = now
			a.Deliver(floodDelivery(i, criticalEvery, now))
		}
		time.Sleep(5 * time.Millisecond)
	}
	floodEnd := time.Now()
	if elapsed := floodEnd.Sub(start); elapsed > 15*time.Second {
		t.Logf("the machine is slow: the flood took %v", elapsed)
	}
	// One more event, the newest, names no number: the Pacer passes its
	// queue on in order, so once this is begun, everything before it has
	// been said or counted as skipped.
	const over = "The flood is over."
	a.Deliver(session.Delivery{Kind: session.KindEvent, At: time.Now(), Event: &protocol.Event{
		SessionID: "sess_flood", EventID: "evt_over", Type: protocol.TypeToolInvoked, Tool: "search",
		Producer: protocol.Producer{AgentID: "flood", AgentName: "Flood"}, SummaryNormal: over}})
	var said []speechdtest.Utterance
	for deadline := time.Now().Add(30 * time.Second); ; {
		said = d.Timed()
		if slices.ContainsFunc(said, func(u speechdtest.Utterance) bool { return strings.Contains(u.Text, over) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q was never spoken", over)
		}
		time.Sleep(200 * time.Millisecond) // the module writes a file: read it again
	}
	if lines.n != total+1 {
		t.Errorf("the line output got %d announcements for %d events", lines.n, total+1)
	}
	var worst time.Duration
	errors := map[int]bool{}
	for _, u := range said {
		nums := eventNumber.FindAllStringSubmatch(u.Text, -1)
		if len(nums) == 0 {
			continue // the module says "N progress updates skipped." apart from what follows
		}
		n, _ := strconv.Atoi(nums[len(nums)-1][1])
		if n >= total {
			t.Fatalf("spoken text %q: no such event", u.Text)
		}
		t.Logf("%v lag %v %q", u.At.Sub(start), u.At.Sub(sent[n]), u.Text)
		if lag := u.At.Sub(sent[n]); lag > worst {
			worst = lag
		}
		if strings.HasPrefix(u.Text, "Error") {
			errors[n] = true
		}
	}
	if worst > bound {
		t.Errorf("speech lagged %v behind the events it told of", worst)
	}
	for i := criticalEvery - 1; i < total; i += criticalEvery {
		if !errors[i] {
			t.Errorf("critical error #%d was not spoken; spoken: %q", i, said)
		}
	}
	// What the flood holds for certain: every critical error, at least one
	// note of the chatter skipped, and the last event. How many more fit
	// between them depends on the voice and on how busy the machine is.
	if want := total/criticalEvery + 2; len(said) < want {
		t.Errorf("only %d texts spoken in %v, want at least %d: %q", len(said), floodEnd.Sub(start), want, said)
	}
	t.Logf("%d texts spoken for %d events; worst lag %v; %d line announcements", len(said), total, worst, lines.n)
}

// Issue 23 item 5, against the real speech-dispatcher with a slow module: one
// agent floods critical prompts, then another agent asks one. The Pacer holds
// the flood (the daemon would say every important text it was given, in
// order) and the other agent's prompt is spoken next after the one being said.
// Order only, not latency.
func TestAgentsTakeTurnsRealDaemon(t *testing.T) {
	d := speechdtest.Start(t, "1")
	sink := &Sink{Backend: newBackend(t, d), Timeout: 10 * time.Second}
	pacer := announce.NewPacer(announce.PaceConfig{OnError: func(err error) { t.Errorf("speech: %v", err) }}, sink)
	defer pacer.Close()
	prompt := func(agent, text string) announce.Announcement {
		return announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Source: agent, Agent: agent, Text: text}
	}
	const flood = 10
	for i := range flood {
		pacer.Announce(prompt("flood", fmt.Sprintf("flood prompt %d", i)))
	}
	bank := "bank confirm the payment"
	pacer.Announce(prompt("bank", bank))
	var got []string
	for n := 1; !slices.Contains(got, bank); n++ {
		got = d.WaitSpoken(t, n, 30*time.Second)
		if len(got) < n {
			t.Fatalf("spoken %q, still waiting for the bank's prompt", got)
		}
	}
	if i := slices.Index(got, bank); i > 1 {
		t.Fatalf("the bank's prompt was spoken after %d of the flood's (at most the one being said): %q", i, got)
	}
}
