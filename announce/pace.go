// pace.go holds Pacer, which keeps speech (and braille) in step with what
// happens: critical announcements go at once, the rest are paced by the
// voice's words per minute and collapsed when they arrive faster than that.

package announce

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/rivo/uniseg"
)

// PaceConfig tunes a Pacer. The zero value paces at 180 words a minute,
// keeps at most 3 seconds of speech waiting and folds repeats for 30 seconds.
type PaceConfig struct {
	// WPM is how many words a minute the voice (or reader) takes in; zero means 180.
	WPM int
	// MaxLag is the most speech, in time, allowed to wait behind what is being
	// said before the queue is collapsed; zero means 3 seconds.
	MaxLag time.Duration
	// FoldWindow is how long an identical state announcement of the same
	// session is counted instead of said again; zero means 30 seconds. The
	// first repeat after the window is said, with the count.
	FoldWindow time.Duration
	// DropBackground leaves background announcements (progress, most state
	// changes) out, as with cognitive load "low".
	DropBackground bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// OnError is told when the paced sink fails; nil ignores it.
	OnError func(error)
	// SayAgents puts the agent's name before what is said when it differs
	// from the last name said, and always before critical announcements
	// and prompt reminders (see who.go): for a listener watching several
	// agents. Off, nothing is added, as with one agent.
	SayAgents bool
}

func (c PaceConfig) withDefaults() PaceConfig {
	if c.WPM <= 0 {
		c.WPM = 180
	}
	if c.MaxLag <= 0 {
		c.MaxLag = 3 * time.Second
	}
	if c.FoldWindow <= 0 {
		c.FoldWindow = 30 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Speaker is implemented by sinks that can tell whether they are still
// saying the last announcement. A Pacer in front of one waits for it as well
// as for its own estimate, so a voice slower than the pace cannot build a
// backlog in the sink.
type Speaker interface {
	Speaking() bool
}

// EndHearer is implemented by Speakers that hear when speech ends rather
// than guess: a Pacer in front of one passes the next critical
// announcement on as soon as the critical one before it has been said,
// not after its estimate.
type EndHearer interface {
	HearsEnd() bool
}

// stillSpeakingPoll is how often a Pacer asks a Speaker again.
const stillSpeakingPoll = 100 * time.Millisecond

// Canceler is implemented by sinks that can stop what they are saying now.
type Canceler interface {
	Cancel() error
}

// Pacer is a Sink that passes announcements on to another sink (speech or
// braille) no faster than they can be taken in. Critical announcements go
// ahead of anything else queued, cut off other speech and are never dropped;
// one waits only for the critical one being said, which is never cut off, and
// waits for it here rather than in the sink, so that agents take turns: the
// next announcement is always the oldest of the agent heard least recently,
// and one agent's flood delays another's announcement by one utterance at most.
// Normal and background ones wait their turn; when more than MaxLag of speech is
// waiting, the chatter in the queue is collapsed: of each kind and agent only the
// latest is kept, with a count of the rest ("4 more tool calls finished"), so
// speech never lags far behind. Only chatter (progress, state changes, tool calls,
// see Chatter) is ever collapsed or left out: the agent's output, prompts,
// errors and ends are always said, even when that leaves speech behind;
// only output that floods faster than anyone listens (more than two
// minutes of speech waiting) is left out, oldest first, and counted.
//
// Announce never blocks; the paced sink is called from the Pacer's own
// goroutine. Close stops it.
type Pacer struct {
	out Sink
	cfg PaceConfig

	mu   sync.Mutex // guards core
	core pacer

	wake chan struct{} // capacity 1: something was queued
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// NewPacer starts pacing announcements into out.
func NewPacer(cfg PaceConfig, out Sink) *Pacer {
	cfg = cfg.withDefaults()
	p := &Pacer{out: out, cfg: cfg, core: newPacer(cfg), wake: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	if h, ok := out.(EndHearer); ok {
		p.core.hears = h.HearsEnd()
	}
	go p.run()
	return p
}

// Announce implements Sink. It queues an and returns at once.
func (p *Pacer) Announce(an Announcement) error {
	p.mu.Lock()
	p.core.push(an, p.cfg.Now())
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return nil
}

// SayAgents switches SayAgents (see PaceConfig) on or off from now on, as
// agents come and go.
func (p *Pacer) SayAgents(on bool) {
	p.mu.Lock()
	p.core.cfg.SayAgents = on
	p.mu.Unlock()
}

// Silence drops every queued announcement that is not critical and, unless a
// critical one is being said, stops the paced sink's current speech when it
// is a Canceler. It reports how many announcements were dropped.
func (p *Pacer) Silence() (int, error) {
	p.mu.Lock()
	n, critical := p.core.silence(p.cfg.Now())
	p.mu.Unlock()
	if c, ok := p.out.(Canceler); ok && !critical {
		if err := c.Cancel(); err != nil {
			return n, fmt.Errorf("announce: silence: %w", err)
		}
	}
	return n, nil
}

// Close stops the Pacer. What is still queued is passed on at once, so the
// end of a session is still said; it does not close the paced sink.
func (p *Pacer) Close() error {
	p.once.Do(func() { close(p.stop) })
	<-p.done
	return nil
}

func (p *Pacer) run() {
	defer close(p.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	speaker, _ := p.out.(Speaker)
	for {
		speaking := speaker != nil && speaker.Speaking()
		p.mu.Lock()
		an, ok, wait := p.core.next(p.cfg.Now(), speaking)
		p.mu.Unlock()
		if ok {
			if err := p.out.Announce(an); err != nil && p.cfg.OnError != nil {
				p.cfg.OnError(err)
			}
			continue
		}
		var tc <-chan time.Time
		if wait > 0 {
			timer.Reset(wait)
			tc = timer.C
		}
		select {
		case <-p.stop:
			p.mu.Lock()
			rest := p.core.drain()
			p.mu.Unlock()
			for _, an := range rest {
				if err := p.out.Announce(an); err != nil && p.cfg.OnError != nil {
					p.cfg.OnError(err)
				}
			}
			return
		case <-p.wake:
		case <-tc:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// item is a queued announcement and how many earlier ones of its kind it stands for.
type item struct {
	an   Announcement
	more int // earlier announcements of the same kind folded into this one
}

// fold remembers when a state announcement was last said, and how often it
// came again since.
type fold struct {
	said    time.Time
	repeats int
}

// maxFolds bounds the remembered state announcements.
const maxFolds = 256

// pacer is the Pacer's logic without goroutines or clocks, so it can be
// driven with virtual time.
type pacer struct {
	cfg       PaceConfig
	critical  []Announcement
	queue     []item
	busyUntil time.Time // when what was passed on last is estimated to be said
	critUntil time.Time // the same, for critical announcements alone
	critLast  bool      // the last announcement passed on was critical
	hears     bool      // speaking is heard from the sink, not guessed: see EndHearer
	skipped   skips     // announcements dropped to keep up, told with the next one
	folds     map[string]*fold
	who       who   // the agent said last, with SayAgents
	turns     turns // which agent's announcement goes next

	// How much slower than estimated the voice really is, learnt from a
	// Speaker: 1 when it keeps up, up to maxSlow.
	slow      float64
	lastStart time.Time     // when the last non-critical announcement was passed on
	lastEst   time.Duration // its estimate at slow 1
	watching  bool          // its end has not been measured yet
	extended  bool          // the Speaker said it was still speaking past the estimate
}

// maxSlow bounds how much slower than estimated a voice is taken to be.
const maxSlow = 4.0

func newPacer(cfg PaceConfig) pacer {
	return pacer{cfg: cfg.withDefaults(), folds: map[string]*fold{}, slow: 1, turns: turns{served: map[string]uint64{}}}
}

// push queues an, arriving at now.
func (p *pacer) push(an Announcement, now time.Time) {
	if an.Text == "" || an.LogOnly {
		return
	}
	if an.Priority >= Critical {
		p.critical = append(p.critical, an)
		return
	}
	if an.Priority == Background && p.cfg.DropBackground && an.Prompt == nil {
		return
	}
	if an.Kind == "state" {
		if !p.fold(&an, now) {
			return
		}
	}
	p.queue = append(p.queue, item{an: an})
	p.collapse(now)
}

// fold counts an identical state announcement said within the fold window
// and reports whether an should be said; when it is, it carries the count.
func (p *pacer) fold(an *Announcement, now time.Time) bool {
	key := an.AgentID + "\x00" + an.SessionID + "\x00" + an.Text // one agent's state never folds into another's
	f := p.folds[key]
	if f != nil && now.Sub(f.said) < p.cfg.FoldWindow {
		f.repeats++
		return false
	}
	if f != nil && f.repeats > 0 {
		an.Text = fmt.Sprintf("%s (%s since it was last said)", strings.TrimSpace(an.Text), times(f.repeats+1))
	}
	if f == nil {
		if len(p.folds) >= maxFolds {
			for k, g := range p.folds {
				if now.Sub(g.said) >= p.cfg.FoldWindow {
					delete(p.folds, k)
				}
			}
			if len(p.folds) >= maxFolds {
				p.folds = map[string]*fold{}
			}
		}
		f = &fold{}
		p.folds[key] = f
	}
	f.said, f.repeats = now, 0
	return true
}

func times(n int) string {
	if n == 2 {
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// next returns the announcement to pass on at now, if any; otherwise how long
// to wait before asking again (zero or less: until something is pushed).
// speaking says the sink is still saying something, whatever the estimate.
func (p *pacer) next(now time.Time, speaking bool) (Announcement, bool, time.Duration) {
	if len(p.critical) == 0 && len(p.queue) == 0 {
		return Announcement{}, false, 0
	}
	if !now.Before(p.busyUntil) && speaking {
		// The voice is slower than estimated: count it as busy a while longer.
		p.busyUntil, p.extended = now.Add(stillSpeakingPoll), true
		if p.critLast {
			p.critUntil = p.busyUntil
		}
	}
	if !now.Before(p.busyUntil) && p.watching {
		p.learn(now)
	}
	if len(p.critical) > 0 {
		// Critical speech is never cut off: the next waits here, where
		// another agent's can still go ahead of it, not in the sink.
		switch {
		case p.critLast && p.hears && speaking:
			return Announcement{}, false, stillSpeakingPoll
		case p.critLast && !p.hears && now.Before(p.critUntil):
			return Announcement{}, false, p.critUntil.Sub(now)
		}
		i := p.turns.pick(len(p.critical), func(i int) string { return source(p.critical[i]) })
		an := p.critical[i]
		p.critical = slices.Delete(p.critical, i, i+1)
		p.served(source(an))
		an = p.named(an)
		p.critUntil = now.Add(p.speakTime(an.Text))
		p.busyUntil = p.critUntil // it cut off whatever else was being said
		p.critLast = true
		// Said at once, it shows how fast the voice is, as any other would.
		p.watching, p.extended = true, false
		p.lastStart, p.lastEst = now, SpeakTime(an.Text, p.cfg.WPM)
		p.collapse(now) // what waits now waits longer
		return an, true, 0
	}
	if now.Before(p.busyUntil) {
		return Announcement{}, false, p.busyUntil.Sub(now)
	}
	i := p.turns.pick(len(p.queue), func(i int) string { return source(p.queue[i].an) })
	it := p.queue[i]
	p.queue = slices.Delete(p.queue, i, i+1)
	p.served(source(it.an))
	an := p.words(it)
	p.lastEst = SpeakTime(an.Text, p.cfg.WPM)
	p.lastStart, p.watching, p.extended = now, true, false
	p.busyUntil = now.Add(p.speakTime(an.Text))
	p.critLast = false
	return an, true, 0
}

// served notes that an announcement of agent was passed on.
func (p *pacer) served(agent string) {
	if len(p.turns.served) < maxTurns {
		p.turns.took(agent)
		return
	}
	queued := make(map[string]bool, len(p.critical)+len(p.queue))
	for _, an := range p.critical {
		queued[source(an)] = true
	}
	for _, it := range p.queue {
		queued[source(it.an)] = true
	}
	p.turns.took(agent)
	p.turns.keep(queued)
}

// learn updates how much slower than estimated the voice is, once the last
// announcement ended at about now.
func (p *pacer) learn(now time.Time) {
	ratio := 0.0
	switch {
	case p.extended:
		ratio = float64(now.Sub(p.lastStart)) / float64(p.lastEst)
	case now.Sub(p.busyUntil) < 2*stillSpeakingPoll:
		ratio = 1 // said within the estimate
	default:
		p.watching = false
		return // not watched closely enough to tell
	}
	ratio = min(max(ratio, 1), maxSlow)
	p.slow = 0.6*p.slow + 0.4*ratio
	p.watching, p.extended = false, false
}

// words returns the announcement of it with the counts it stands for.
func (p *pacer) words(it item) Announcement {
	an := it.an
	if it.more > 0 {
		prepend(&an, fmt.Sprintf("%d more %s; the latest: ", it.more, kindNoun(an.Kind, it.more)))
	}
	an = p.named(an) // the count is of this agent's announcements
	if p.skipped.total() > 0 {
		prepend(&an, p.skipped.words()+" skipped. ") // anyone's
		p.skipped = nil
	}
	return an
}

// named is an with its agent's name before it when SayAgents asks for it.
func (p *pacer) named(an Announcement) Announcement {
	if p.cfg.SayAgents {
		p.who.name(&an)
	}
	return an
}

// drain returns everything queued, critical first, and empties the queue.
func (p *pacer) drain() []Announcement {
	out := make([]Announcement, 0, len(p.critical)+len(p.queue))
	for _, an := range p.critical {
		out = append(out, p.named(an))
	}
	for _, it := range p.queue {
		out = append(out, p.words(it))
	}
	p.critical, p.queue = nil, nil
	return out
}

// silence drops the queue and reports how many were dropped and whether a
// critical announcement is still being said.
func (p *pacer) silence(now time.Time) (int, bool) {
	n := p.skipped.total()
	for _, it := range p.queue {
		n += 1 + it.more
	}
	p.queue, p.skipped = p.queue[:0], nil
	critical := p.critUntil.After(now) || len(p.critical) > 0
	if !critical {
		p.busyUntil = now
	}
	return n, critical
}

// lag is how long the newest queued announcement would wait, at now, before
// it is said: what is being said and everything queued before it.
func (p *pacer) lag(now time.Time) time.Duration {
	var d time.Duration
	if p.busyUntil.After(now) {
		d = p.busyUntil.Sub(now)
	}
	for _, it := range p.queue[:max(len(p.queue)-1, 0)] {
		d += p.speakTime(p.wordsPreview(it))
	}
	return d
}

func (p *pacer) wordsPreview(it item) string {
	text := it.an.Text
	if p.cfg.SayAgents {
		text = it.an.Agent + ": " + text // said, at most, before it
	}
	if it.more > 0 {
		return "N more things; the latest: " + text
	}
	return text
}

// collapse shortens the queue when its newest announcement would wait more
// than MaxLag: first of each kind (and agent) of chatter only the latest is
// kept, counting the rest; then background and then the oldest chatter is
// dropped (counted as skipped), the newest one always kept.
// What is not chatter is kept as it is.
func (p *pacer) collapse(now time.Time) {
	if len(p.queue) == 0 || p.lag(now) <= p.cfg.MaxLag {
		return
	}
	latest := map[string]int{} // agent and kind → index in kept
	kept := make([]item, 0, len(p.queue))
	for _, it := range p.queue {
		if !Chatter(it.an) {
			kept = append(kept, it)
			continue
		}
		// One agent's announcements are never counted as another's.
		key := it.an.Agent + "\x00" + it.an.AgentID + "\x00" + it.an.Kind
		if i, ok := latest[key]; ok {
			it.more += kept[i].more + 1
			kept[i] = item{} // replaced by the newer one, below
		}
		latest[key] = len(kept)
		kept = append(kept, it)
	}
	p.queue = p.queue[:0]
	for _, it := range kept {
		if it.an.Text != "" {
			p.queue = append(p.queue, it)
		}
	}
	for p.lag(now) > p.cfg.MaxLag && p.dropOldest() {
	}
	for p.lag(now) > max(p.cfg.MaxLag, outputFlood) && p.dropOldestOutput() {
	}
}

// outputFlood is how much speech may wait before even the agent's output is
// left out, oldest first: only an agent that writes far faster than anyone
// listens comes near it, and it keeps the queue bounded.
const outputFlood = 2 * time.Minute

// dropOldestOutput drops the oldest piece of the agent's output, never the
// newest announcement; it reports whether it dropped one.
func (p *pacer) dropOldestOutput() bool {
	for i, it := range p.queue[:max(len(p.queue)-1, 0)] {
		if it.an.Kind == "output" && it.an.Prompt == nil {
			p.skipped = p.skipped.add(it.an.Kind, 1+it.more)
			p.queue = slices.Delete(p.queue, i, i+1)
			return true
		}
	}
	return false
}

// dropOldest drops the oldest background chatter, else the oldest
// other chatter, never the newest; it reports whether it dropped one.
func (p *pacer) dropOldest() bool {
	last := len(p.queue) - 1
	for _, bg := range []bool{true, false} {
		for i, it := range p.queue[:max(last, 0)] {
			if Chatter(it.an) && (!bg || it.an.Priority == Background) {
				p.skipped = p.skipped.add(it.an.Kind, 1+it.more)
				p.queue = append(p.queue[:i], p.queue[i+1:]...)
				return true
			}
		}
	}
	return false
}

// speakTime estimates how long text takes to say at the configured pace,
// with a short pause after it, as slow as the voice has shown itself to be. Words are separated by spaces; a run of
// text without spaces (as in Chinese or Japanese) counts a word for every
// few grapheme clusters.
func (p *pacer) speakTime(text string) time.Duration {
	return time.Duration(float64(SpeakTime(text, p.cfg.WPM)) * p.slow)
}

// utterancePause is the silence estimated between two announcements.
const utterancePause = 300 * time.Millisecond

// SpeakTime estimates how long text takes to say at wpm words a minute,
// including a short pause after it.
func SpeakTime(text string, wpm int) time.Duration {
	if wpm <= 0 {
		wpm = 180
	}
	words := 0
	for _, f := range strings.Fields(text) {
		n := 1
		if len(f) > 12 {
			n = 1 + (uniseg.GraphemeClusterCount(f)-1)/8
		}
		words += n
	}
	return time.Duration(words)*time.Minute/time.Duration(wpm) + utterancePause
}

// Chatter reports whether a Pacer may collapse an or leave it out to keep up:
// progress, state changes, tool calls and session starts. The agent's output,
// prompts and what is said about them, errors, ends and anything critical
// are never left out.
func Chatter(an Announcement) bool {
	if an.Prompt != nil || an.Priority >= Critical {
		return false
	}
	switch an.Kind {
	case "progress", "state", "tool", "tool-done", "started", "event":
		return true
	}
	return false
}

// skips counts announcements left out to keep up, by kind, in the order
// the kinds were first left out.
type skips []skip

type skip struct {
	kind string
	n    int
}

// add counts n more announcements of kind.
func (s skips) add(kind string, n int) skips {
	for i := range s {
		if s[i].kind == kind {
			s[i].n += n
			return s
		}
	}
	return append(s, skip{kind, n})
}

func (s skips) total() int {
	n := 0
	for _, k := range s {
		n += k.n
	}
	return n
}

// words says what was left out, shortly, for it is said before what comes
// next: "3 progress updates", or of several kinds "12 progress, state and
// tool updates".
func (s skips) words() string {
	if len(s) == 1 {
		return fmt.Sprintf("%d %s", s[0].n, kindNoun(s[0].kind, s[0].n))
	}
	var kinds []string
	for _, k := range s {
		w, ok := chatterWords[k.kind]
		if !ok {
			w = "other"
		}
		if !slices.Contains(kinds, w) {
			kinds = append(kinds, w)
		}
	}
	return fmt.Sprintf("%d %s updates", s.total(), prose.List(kinds))
}

// chatterWords name kinds of chatter in a list of kinds skipped.
var chatterWords = map[string]string{
	"progress": "progress", "state": "state", "tool": "tool", "tool-done": "tool", "started": "start",
}

// kindNouns name announcements of a kind in counts: one, many.
var kindNouns = map[string][2]string{
	"tool":      {"tool call started", "tool calls started"},
	"tool-done": {"tool call finished", "tool calls finished"},
	"progress":  {"progress update", "progress updates"},
	"state":     {"state change", "state changes"},
	"output":    {"piece of output", "pieces of output"},
	"started":   {"session started", "sessions started"},
	"completed": {"session finished", "sessions finished"},
	"cancelled": {"session cancelled", "sessions cancelled"},
	"event":     {"other event", "other events"},
}

// kindNoun names n announcements of kind, for counts.
func kindNoun(kind string, n int) string {
	nouns, ok := kindNouns[kind]
	if !ok {
		nouns = [2]string{"announcement", "announcements"}
	}
	if n == 1 {
		return nouns[0]
	}
	return nouns[1]
}
