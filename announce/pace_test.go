package announce

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// floodEvent is event i of a flood: a mix of kinds, with a critical prompt
// every criticalEvery events. Its text names its number, "#i".
func floodEvent(i, criticalEvery int) Announcement {
	if criticalEvery > 0 && i%criticalEvery == criticalEvery-1 {
		return Announcement{Priority: Critical, Kind: "confirmation", Text: fmt.Sprintf("Confirm prompt #%d: delete old files?", i),
			Prompt: &session.Prompt{Number: i}}
	}
	switch i % 5 {
	case 0:
		return Announcement{Priority: Normal, Kind: "tool", Text: fmt.Sprintf("Using search #%d.", i)}
	case 1:
		return Announcement{Priority: Normal, Kind: "tool-done", Text: fmt.Sprintf("Finished search #%d.", i)}
	case 2:
		return Announcement{Priority: Background, Kind: "progress", Text: fmt.Sprintf("Progress: step #%d.", i)}
	case 3:
		return Announcement{Priority: Background, Kind: "state", Text: fmt.Sprintf("Now working on #%d.", i)}
	}
	return Announcement{Priority: Normal, Kind: "event", Text: fmt.Sprintf("An event of another kind, #%d, with a long summary of its own.", i)}
}

var numberRE = regexp.MustCompile(`#(\d+)`)

// latestNumber is the highest event number an announcement's text names.
func latestNumber(t *testing.T, text string) int {
	t.Helper()
	m := numberRE.FindAllStringSubmatch(text, -1)
	if m == nil {
		t.Fatalf("no event number in %q", text)
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// Must show: 2,000 events a second for 10 seconds, paced for 180 words a
// minute, on a virtual clock. Every announcement is passed on within 5
// seconds of the newest event it tells of, speech ends within 5 seconds of
// the flood, and every critical prompt is passed on, in order.
func TestPacingKeepsUpWithAFloodVirtualClock(t *testing.T) {
	const (
		rate          = 2000
		seconds       = 10
		criticalEvery = 5000 // a critical prompt every 2.5 seconds
	)
	p := newPacer(PaceConfig{WPM: 180})
	type spoken struct {
		at time.Time
		an Announcement
	}
	var out []spoken
	drain := func(now time.Time) {
		for {
			an, ok, _ := p.next(now, false)
			if !ok {
				return
			}
			out = append(out, spoken{now, an})
		}
	}
	step := time.Second / rate
	total := rate * seconds
	for i := 0; i < total; i++ {
		now := t0.Add(time.Duration(i) * step)
		p.push(floodEvent(i, criticalEvery), now)
		drain(now)
	}
	flood := t0.Add(time.Duration(total) * step)
	for now := flood; now.Before(flood.Add(time.Minute)); now = now.Add(10 * time.Millisecond) {
		drain(now)
	}
	// The voice: critical speech cuts off other speech and queues behind
	// critical speech only; other speech waits for the end of what is said.
	var criticals []int
	var worst time.Duration
	var end, critEnd time.Time
	for _, s := range out {
		start := s.at
		if s.an.Priority == Critical {
			if critEnd.After(start) {
				start = critEnd
			}
			critEnd = start.Add(SpeakTime(s.an.Text, 180))
			end = critEnd
		} else {
			if end.After(start) {
				start = end
			}
			end = start.Add(SpeakTime(s.an.Text, 180))
		}
		n := latestNumber(t, s.an.Text)
		lag := start.Sub(t0.Add(time.Duration(n) * step))
		if lag > worst {
			worst = lag
		}
		if s.an.Priority == Critical {
			criticals = append(criticals, n)
		}
	}
	if worst > 5*time.Second {
		t.Errorf("speech lagged %v behind the events it told of", worst)
	}
	if last := latestNumber(t, out[len(out)-1].an.Text); last < total-5 {
		t.Errorf("the last announcement tells of event #%d, not of the flood's end", last)
	}
	if len(criticals) != total/criticalEvery {
		t.Fatalf("%d critical prompts passed on, want %d", len(criticals), total/criticalEvery)
	}
	for i, n := range criticals {
		if want := (i+1)*criticalEvery - 1; n != want {
			t.Fatalf("critical %d is #%d, want #%d", i, n, want)
		}
	}
	if len(out) < 8 {
		t.Fatalf("only %d announcements said in %ds", len(out), seconds)
	}
	t.Logf("%d announcements for %d events, worst lag %v", len(out), total, worst)
}

func TestPacerCollapse(t *testing.T) {
	tests := []struct {
		name string
		in   []Announcement
		want []string // what is passed on, in order, when nothing is being said
	}{
		{"slow enough: nothing collapsed", []Announcement{
			{Priority: Normal, Kind: "tool", Text: "Using search."},
			{Priority: Normal, Kind: "tool-done", Text: "Finished search."},
		}, []string{"Using search.", "Finished search."}},
		{"latest of each kind, with counts", []Announcement{
			{Priority: Normal, Kind: "tool-done", Text: "Finished one."},
			{Priority: Normal, Kind: "tool-done", Text: "Finished two."},
			{Priority: Background, Kind: "progress", Text: "Progress: 10 percent."},
			{Priority: Normal, Kind: "tool-done", Text: "Finished three."},
			{Priority: Background, Kind: "progress", Text: "Progress: 20 percent."},
			{Priority: Normal, Kind: "tool-done", Text: "Finished four."},
			{Priority: Normal, Kind: "tool-done", Text: "Finished five."},
		}, []string{"Using first.", "1 more progress update; the latest: Progress: 20 percent.", "4 more tool calls finished; the latest: Finished five."}},
		{"a prompt's announcements are never collapsed", []Announcement{
			{Priority: Normal, Kind: "reply-sent", Text: "Sent your answer to prompt 1: accept.", Prompt: &session.Prompt{Number: 1}},
			{Priority: Normal, Kind: "progress", Text: strings.Repeat("word ", 30)},
			{Priority: Normal, Kind: "reply-sent", Text: "Sent your answer to prompt 2: reject.", Prompt: &session.Prompt{Number: 2}},
		}, []string{"Using first.", "1 progress update skipped. Sent your answer to prompt 1: accept.", "Sent your answer to prompt 2: reject."}},
		{"the agent's output, errors and ends are never collapsed nor left out", []Announcement{
			{Priority: Normal, Kind: "output", Text: "The first sentence of the answer, which is a long one."},
			{Priority: Background, Kind: "progress", Text: "Progress: 10 percent."},
			{Priority: Normal, Kind: "output", Text: "The second sentence of the answer, also long enough."},
			{Priority: Normal, Kind: "tool-done", Text: "Finished one."},
			{Priority: Normal, Kind: "output", Text: "The third sentence of the answer, the last of it."},
			{Priority: Normal, Kind: "errored", Text: "Error: the tool broke."},
			{Priority: Normal, Kind: "completed", Text: "Finished: the answer."},
		}, []string{"Using first.", "2 progress and tool updates skipped. The first sentence of the answer, which is a long one.",
			"The second sentence of the answer, also long enough.", "The third sentence of the answer, the last of it.",
			"Error: the tool broke.", "Finished: the answer."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPacer(PaceConfig{WPM: 180, MaxLag: 6 * time.Second})
			// Something is being said; the rest queues behind it.
			p.push(Announcement{Priority: Normal, Kind: "tool", Text: "Using first."}, t0)
			var got []string
			if an, ok, _ := p.next(t0, false); ok {
				got = append(got, an.Text)
			}
			for _, an := range tt.in {
				p.push(an, t0)
			}
			for now := t0; now.Before(t0.Add(time.Minute)); now = now.Add(100 * time.Millisecond) {
				if an, ok, _ := p.next(now, false); ok {
					got = append(got, an.Text)
				}
			}
			want := tt.want
			if tt.name == "slow enough: nothing collapsed" {
				want = append([]string{"Using first."}, want...)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// An agent that writes faster than anyone listens is still heard, in
// order, up to two minutes behind; older output is left out and counted,
// so the queue stays bounded.
func TestPacerOutputFloodBounded(t *testing.T) {
	p := newPacer(PaceConfig{WPM: 180})
	const total = 2000
	for i := range total {
		p.push(Announcement{Priority: Normal, Kind: "output", Text: fmt.Sprintf("Sentence #%d of a very long answer.", i)}, t0)
	}
	if len(p.queue) > 200 {
		t.Fatalf("%d pieces of output wait", len(p.queue))
	}
	var got []string
	for now := t0; now.Before(t0.Add(5 * time.Minute)); now = now.Add(100 * time.Millisecond) {
		if an, ok, _ := p.next(now, false); ok {
			got = append(got, an.Text)
		}
	}
	if !strings.HasSuffix(got[len(got)-1], fmt.Sprintf("#%d of a very long answer.", total-1)) {
		t.Errorf("the last output said is %q", got[len(got)-1])
	}
	if !regexp.MustCompile(`^\d+ pieces of output skipped\. Sentence #`).MatchString(got[0]) {
		t.Errorf("the first said is %q, want a count of the output left out", got[0])
	}
	for i := 1; i < len(got); i++ {
		if latestNumber(t, got[i]) != latestNumber(t, got[i-1])+1 {
			t.Fatalf("output out of order or left out once it was queued: %q then %q", got[i-1], got[i])
		}
	}
}

func TestPacerCriticalGoesFirstAndNeverDropped(t *testing.T) {
	p := newPacer(PaceConfig{MaxLag: time.Second})
	p.push(Announcement{Priority: Normal, Kind: "output", Text: strings.Repeat("chatter ", 40)}, t0)
	p.next(t0, false)
	for i := 0; i < 50; i++ {
		p.push(Announcement{Priority: Normal, Kind: "output", Text: "more chatter " + strconv.Itoa(i)}, t0)
		p.push(Announcement{Priority: Critical, Kind: "errored", Text: "Error " + strconv.Itoa(i)}, t0)
	}
	now := t0
	for i := 0; i < 50; i++ {
		an, ok, wait := p.next(now, false)
		if !ok || an.Text != "Error "+strconv.Itoa(i) {
			t.Fatalf("next %d: %q %v, want the critical error %d", i, an.Text, ok, i)
		}
		// The next error waits for this one to be said, and chatter for all of them.
		if _, ok, wait = p.next(now, false); ok || wait <= 0 {
			t.Fatalf("passed on while error %d is said (wait %v)", i, wait)
		}
		now = now.Add(wait)
	}
}

func TestPacerFoldsRepeatedStates(t *testing.T) {
	p := newPacer(PaceConfig{FoldWindow: 10 * time.Second})
	var got []string
	say := func(text string, at time.Duration) {
		now := t0.Add(at)
		p.push(Announcement{Priority: Background, Kind: "state", SessionID: "s1", Text: text}, now)
		for {
			an, ok, _ := p.next(now.Add(time.Hour), false) // never busy: look at folding alone
			if !ok {
				break
			}
			got = append(got, an.Text)
		}
	}
	say("Now working.", 0)
	say("Now waiting.", time.Second)
	say("Now working.", 2*time.Second)
	say("Now waiting.", 3*time.Second)
	say("Now working.", 4*time.Second)
	say("Now working.", 12*time.Second) // after the window: said, with the count
	say("Now working.", 13*time.Second)
	say("Now working.", 30*time.Second) // never muted forever
	want := []string{"Now working.", "Now waiting.", "Now working. (3 times since it was last said)", "Now working. (twice since it was last said)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestPacerDropsBackgroundWhenAsked(t *testing.T) {
	p := newPacer(PaceConfig{DropBackground: true})
	p.push(Announcement{Priority: Background, Kind: "progress", Text: "Progress: 50 percent."}, t0)
	p.push(Announcement{Priority: Normal, Kind: "tool", Text: "Using search."}, t0)
	an, ok, _ := p.next(t0, false)
	if !ok || an.Text != "Using search." {
		t.Fatalf("got %q, want the normal announcement only", an.Text)
	}
	if _, ok, _ := p.next(t0.Add(time.Hour), false); ok {
		t.Fatal("background announcement passed on")
	}
}

func TestPacerSilence(t *testing.T) {
	r := &cancelRecorder{}
	p := NewPacer(PaceConfig{WPM: 60, MaxLag: time.Minute}, r)
	defer p.Close()
	p.Announce(Announcement{Priority: Normal, Kind: "tool", Text: "one two three four five six seven eight"})
	p.Announce(Announcement{Priority: Normal, Kind: "output", Text: "queued"})
	waitFor(t, func() bool { return len(r.texts()) == 1 })
	n, err := p.Silence()
	if err != nil || n != 1 {
		t.Fatalf("Silence: %d dropped, %v; want 1", n, err)
	}
	if r.cancelled() != 1 {
		t.Fatal("current speech not cancelled")
	}
	p.Announce(Announcement{Priority: Normal, Kind: "output", Text: "after"})
	waitFor(t, func() bool { return len(r.texts()) == 2 })
	if got := r.texts(); got[1] != "after" {
		t.Fatalf("said %q", got)
	}
	// A critical announcement being said is not cut off by silence.
	p.Announce(Announcement{Priority: Critical, Kind: "errored", Text: "Error: disk full, this sentence takes a while to say."})
	waitFor(t, func() bool { return len(r.texts()) == 3 })
	if _, err := p.Silence(); err != nil || r.cancelled() != 1 {
		t.Fatalf("silence cut off a critical announcement (%v)", err)
	}
}

type cancelRecorder struct {
	mu      sync.Mutex
	got     []string
	cancels int
}

func (c *cancelRecorder) Announce(a Announcement) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, a.Text)
	return nil
}

func (c *cancelRecorder) Cancel() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancels++
	return nil
}

func (c *cancelRecorder) texts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

func (c *cancelRecorder) cancelled() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancels
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSpeakTime(t *testing.T) {
	tests := []struct {
		text string
		wpm  int
		want time.Duration
	}{
		{"one two three", 180, time.Second + utterancePause},
		{"one two three", 60, 3*time.Second + utterancePause},
		{"", 180, utterancePause},
		{"这是一个很长的中文句子没有空格这是一个很长的中文句子", 180, 4*time.Second/3 + utterancePause},
	}
	for _, tt := range tests {
		if got := SpeakTime(tt.text, tt.wpm); got != tt.want {
			t.Errorf("SpeakTime(%q, %d) = %v, want %v", tt.text, tt.wpm, got, tt.want)
		}
	}
}

func BenchmarkPacerFlood(b *testing.B) {
	p := newPacer(PaceConfig{})
	events := make([]Announcement, 1000)
	for i := range events {
		events[i] = floodEvent(i, 0)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := t0.Add(time.Duration(i) * time.Millisecond / 2)
		p.push(events[i%len(events)], now)
		p.next(now, false)
	}
}

func TestAnnouncerSilence(t *testing.T) {
	r := &cancelRecorder{}
	p := NewPacer(PaceConfig{WPM: 60, MaxLag: time.Minute}, r)
	defer p.Close()
	a := New(Config{}, &recorder{}, p)
	if _, silenced, _ := New(Config{}, &recorder{}).Silence(); silenced {
		t.Fatal("an announcer without a pacer says it can silence")
	}
	p.Announce(Announcement{Priority: Normal, Kind: "tool", Text: "one two three four five six"})
	p.Announce(Announcement{Priority: Normal, Kind: "output", Text: "waiting"})
	waitFor(t, func() bool { return len(r.texts()) == 1 })
	n, silenced, err := a.Silence()
	if n != 1 || !silenced || err != nil || r.cancelled() != 1 {
		t.Fatalf("Silence = %d %v %v, cancels %d", n, silenced, err, r.cancelled())
	}
}

func TestPacerCloseSaysWhatIsQueued(t *testing.T) {
	r := &cancelRecorder{}
	p := NewPacer(PaceConfig{WPM: 60, MaxLag: time.Minute}, r)
	p.Announce(Announcement{Priority: Normal, Kind: "tool", Text: "one two three four five six"})
	p.Announce(Announcement{Priority: Normal, Kind: "completed", Text: "Finished: the task is complete."})
	waitFor(t, func() bool { return len(r.texts()) == 1 })
	p.Close()
	if got := r.texts(); len(got) != 2 || got[1] != "Finished: the task is complete." {
		t.Fatalf("said %q, want the end of the session too", got)
	}
}

// A voice slower than estimated: the pacer waits while the sink says it is
// still speaking, learns how slow the voice is, and lets critical ones by.
func TestPacerWaitsForASlowVoice(t *testing.T) {
	p := newPacer(PaceConfig{WPM: 180})
	text := "one two three" // 1.3 s at 180 words a minute
	est := SpeakTime(text, 180)
	for round := 0; round < 5; round++ {
		start := t0.Add(time.Duration(round) * time.Minute)
		p.push(Announcement{Priority: Normal, Kind: "tool", Text: text}, start)
		p.push(Announcement{Priority: Normal, Kind: "output", Text: "next"}, start)
		if an, ok, _ := p.next(start, false); !ok || an.Text != text {
			t.Fatalf("round %d: first not passed on", round)
		}
		// Twice as slow as estimated: speaking until 2×est.
		now := start
		for ; now.Before(start.Add(2 * est)); now = now.Add(50 * time.Millisecond) {
			if an, ok, _ := p.next(now, true); ok {
				t.Fatalf("round %d: %q passed on at %v while the voice still speaks", round, an.Text, now.Sub(start))
			}
		}
		if round == 0 {
			p.push(Announcement{Priority: Critical, Kind: "errored", Text: "Error."}, now)
			if an, ok, _ := p.next(now, true); !ok || an.Text != "Error." {
				t.Fatal("a critical announcement waited for the voice")
			}
			now = now.Add(time.Minute / 2)
		}
		for ; ; now = now.Add(50 * time.Millisecond) {
			if an, ok, _ := p.next(now, false); ok {
				if an.Text != "next" {
					t.Fatalf("got %q", an.Text)
				}
				break
			}
		}
		p.next(now.Add(time.Hour), false) // let it end
	}
	if p.slow < 1.5 || p.slow > 2.2 {
		t.Fatalf("learnt the voice is %.2f times slower, want about 2", p.slow)
	}
}

// FuzzPacer drives the pacer with arbitrary arrivals and voices: every
// critical announcement and every announcement about a prompt is passed on,
// critical ones in order, and the queue stays bounded.
func FuzzPacer(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 17, 33})
	f.Add([]byte{7, 7, 7, 7, 7, 255, 0, 0, 1})
	kinds := []string{"tool", "tool-done", "progress", "state", "output", "started", "event"}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 1000 {
			ops = ops[:1000]
		}
		p := newPacer(PaceConfig{WPM: 180, MaxLag: 2 * time.Second})
		now := t0
		var wantCritical, gotCritical []string
		wantPrompts, gotPrompts := 0, 0
		outputs := 0 // output pushed and not yet taken: the pacer never collapses it
		take := func(speaking bool) {
			for {
				an, ok, _ := p.next(now, speaking)
				if !ok {
					return
				}
				if an.Kind == "output" {
					outputs--
				}
				if an.Priority == Critical {
					gotCritical = append(gotCritical, an.Text)
				} else if an.Prompt != nil {
					gotPrompts++
				}
			}
		}
		for i, op := range ops {
			switch {
			case op%16 == 15:
				text := "Critical " + strconv.Itoa(i)
				wantCritical = append(wantCritical, text)
				p.push(Announcement{Priority: Critical, Kind: "errored", Text: text}, now)
			case op%16 == 14:
				wantPrompts++
				p.push(Announcement{Priority: Normal, Kind: "reply-sent", Text: "Sent " + strconv.Itoa(i), Prompt: &session.Prompt{Number: i}}, now)
			default:
				pr := Normal
				if op&0x10 != 0 {
					pr = Background
				}
				kind := kinds[int(op)%len(kinds)]
				if kind == "output" {
					outputs++
				}
				p.push(Announcement{Priority: pr, Kind: kind, SessionID: "s", Text: strings.Repeat("word ", int(op>>5)+1)}, now)
			}
			take(op&0x20 != 0)
			// Chatter collapses to at most one entry a kind; prompts and the
			// agent's output wait whole.
			if n := len(p.queue); n > len(kinds)+wantPrompts-gotPrompts+max(outputs, 0)+1 {
				t.Fatalf("queue of %d", n)
			}
			now = now.Add(time.Duration(op) * time.Millisecond)
		}
		// Everything left is passed on in time: a thousand prompt
		// announcements take about twenty minutes to say at this pace
		// (10,000 steps of 100 ms were too few for 996 of them).
		for i := 0; i < 100000 && (len(p.queue) > 0 || len(p.critical) > 0); i++ {
			now = now.Add(100 * time.Millisecond)
			take(false)
		}
		if len(p.queue) > 0 || len(p.critical) > 0 {
			t.Fatalf("%d announcements and %d critical ones still wait after %v", len(p.queue), len(p.critical), now.Sub(t0))
		}
		if strings.Join(gotCritical, "|") != strings.Join(wantCritical, "|") {
			t.Fatalf("critical passed on %q, want %q", gotCritical, wantCritical)
		}
		if gotPrompts != wantPrompts {
			t.Fatalf("%d prompt announcements passed on, want %d", gotPrompts, wantPrompts)
		}
	})
}

// Two agents sharing a session id and saying the same state are both heard:
// one agent's state is never folded into the other's count.
func TestPacerFoldsPerAgent(t *testing.T) {
	p := newPacer(PaceConfig{FoldWindow: 10 * time.Second})
	var got []string
	for i, agent := range []string{"ada", "bob"} {
		now := t0.Add(time.Duration(i) * time.Second)
		p.push(Announcement{Priority: Background, Kind: "state", AgentID: agent, Agent: agent, SessionID: "s1", Text: "Now waiting."}, now)
		for {
			an, ok, _ := p.next(now.Add(time.Hour), false)
			if !ok {
				break
			}
			got = append(got, an.Agent+": "+an.Text)
		}
	}
	if want := []string{"ada: Now waiting.", "bob: Now waiting."}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Streamed output, read out when its stream is flushed, keeps its agent's
// id: the TUI's sessions view and the pacer tell sessions apart by it.
func TestStreamedOutputKeepsAgentID(t *testing.T) {
	r := &recorder{}
	a := New(Config{}, r)
	ev := &protocol.Event{Type: protocol.TypeOutputStreaming, SessionID: "s1", OutputID: "out_1", Chunk: "Hello",
		Producer: protocol.Producer{AgentID: "bob"}}
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: ev})
	a.Flush(t0)
	for _, an := range r.got {
		if an.Kind == "output" && an.AgentID != "bob" {
			t.Errorf("output %q has agent id %q, want bob", an.Text, an.AgentID)
		}
	}
}

// Many agents, one flooding: a critical announcement of any agent goes ahead
// of everything less urgent, and waits behind one of the flood's (the one
// being said) at most; agents take turns, each in its own order. Order only:
// the voice is a virtual clock that says each announcement in its estimate.
func TestPacerAgentsTakeTurns(t *testing.T) {
	p := newPacer(PaceConfig{WPM: 180})
	crit := func(agent string, n int) Announcement {
		return Announcement{Priority: Critical, Kind: "confirmation", Source: agent, Agent: "build-bot", // every producer claims one name
			Text: fmt.Sprintf("%s %d", agent, n), Prompt: &session.Prompt{Number: n}}
	}
	now := t0
	var said []string
	say := func() { // pass on one, waiting for the voice as long as it takes
		for {
			an, ok, wait := p.next(now, false)
			if ok {
				said = append(said, an.Text)
				return
			}
			if wait <= 0 {
				t.Fatal("nothing to say")
			}
			now = now.Add(wait)
		}
	}
	for i := 0; i < 100; i++ {
		p.push(crit("flood", i), now)
		p.push(Announcement{Priority: Normal, Kind: "tool", Source: "quiet", Text: fmt.Sprintf("quiet tool %d", i)}, now)
	}
	say() // flood 0 is being said
	for _, agent := range []string{"bank", "mail", "code"} {
		p.push(crit(agent, 0), now)
	}
	say()
	say()
	p.push(crit("bank", 1), now) // bank was heard: it waits its turn after mail and code
	for len(said) < 10 {
		say()
	}
	want := []string{"flood 0", "bank 0", "mail 0", "code 0", "flood 1", "bank 1", "flood 2", "flood 3", "flood 4", "flood 5"}
	if strings.Join(said, "|") != strings.Join(want, "|") {
		t.Fatalf("said %q\nwant %q", said, want)
	}
	for len(p.critical) > 0 {
		say()
	}
	for _, text := range said[10:] {
		if !strings.HasPrefix(text, "flood ") {
			t.Fatalf("%q said among the criticals", text)
		}
	}
	say()
	if !strings.Contains(said[len(said)-1], "quiet tool") {
		t.Fatalf("after the criticals %q, want the quiet agent's tool", said[len(said)-1])
	}
}

// The next announcement is the oldest of the agent heard least recently,
// whatever the number of agents and of announcements each has queued.
func TestTurnsPick(t *testing.T) {
	tests := []struct {
		name   string
		heard  []string // agents heard, in this order
		queued []string // whose each queued announcement is, oldest first
		want   int
	}{
		{"empty", nil, nil, 0},
		{"one agent: the oldest", []string{"a"}, []string{"a", "a", "a"}, 0},
		{"never heard goes first", []string{"a"}, []string{"a", "a", "b", "a"}, 2},
		{"two never heard: the older", []string{"a"}, []string{"a", "c", "b"}, 1},
		{"heard longest ago", []string{"c", "b", "a"}, []string{"a", "b", "c", "c"}, 2},
		{"heard again moves back", []string{"b", "a", "b"}, []string{"b", "b", "a"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := turns{served: map[string]uint64{}}
			for _, a := range tt.heard {
				tr.took(a)
			}
			if got := tr.pick(len(tt.queued), func(i int) string { return tt.queued[i] }); got != tt.want {
				t.Fatalf("pick = %d, want %d", got, tt.want)
			}
		})
	}
}

// In front of a sink that hears when speech ends, the next critical
// announcement waits while the one before is still said, and no longer.
func TestPacerCriticalWaitsForTheHeardEnd(t *testing.T) {
	p := newPacer(PaceConfig{})
	p.hears = true
	for _, text := range []string{"first critical, a long sentence of many words to say", "second"} {
		p.push(Announcement{Priority: Critical, Kind: "errored", Text: text}, t0)
	}
	if an, ok, _ := p.next(t0, false); !ok || !strings.HasPrefix(an.Text, "first") {
		t.Fatalf("first: %q %v", an.Text, ok)
	}
	if an, ok, _ := p.next(t0.Add(time.Minute), true); ok {
		t.Fatalf("%q passed on while the first is still said", an.Text)
	}
	if an, ok, _ := p.next(t0.Add(time.Millisecond), false); !ok || an.Text != "second" {
		t.Fatalf("second, once the first was said: %q %v", an.Text, ok)
	}
}
