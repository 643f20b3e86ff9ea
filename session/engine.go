package session

import (
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// Config tunes an Engine. The zero Config is ready to use.
type Config struct {
	// ReorderWait is how long an event may wait for missing earlier sequence
	// numbers of its session before it is released anyway. 0 means 250ms.
	ReorderWait time.Duration
	// ReorderWindow is the most events one session may hold back; one more
	// releases the lowest held. 0 means 256. All sessions together hold at
	// most 1024 events, or ReorderWindow when that is more.
	ReorderWindow int
	// DedupeWindow is how many recent (agent_id, event_id) keys are
	// remembered to drop duplicates. 0 means 1<<16.
	DedupeWindow int
	// Dedupe, when not nil, is the window of keys the engine shares with
	// others instead of a window of its own (DedupeWindow is then unused).
	Dedupe *Dedupe
	// MaxSessions is how many sessions are tracked; beyond it the least
	// recently active is forgotten, ended sessions first. 0 means 16384.
	MaxSessions int
	// DecidedBy, when not empty, is written into every reply's decided_by.
	DecidedBy string
	// MaxPendingPerAgent is the most prompts of one agent offered for an
	// answer at once; MaxPending the most of all agents together. A prompt
	// beyond either is announced as not offered. 0 means 256 and 1024.
	MaxPendingPerAgent int
	MaxPending         int
	// Numbers, when not nil, gives each prompt offered for an answer its
	// number (see Numbers); engines sharing one number their prompts
	// uniquely across them. nil numbers from 1 in each engine.
	Numbers func() int
}

// Defaults for the zero values of Config.
const (
	defaultReorderWait   = 250 * time.Millisecond
	defaultReorderWindow = 256
	defaultDedupeWindow  = 1 << 16
	defaultMaxSessions   = 16384
	defaultMaxHeld       = 1024

	defaultMaxPendingPerAgent = 256
	defaultMaxPending         = 1024

	// outputWindow bounds the remembered (session, output_id) pairs whose
	// final chunk was seen; tokenWindow the remembered reply tokens.
	outputWindow = 1 << 14
	tokenWindow  = 1 << 12
)

// Engine is the subscriber's state machine for one subscription. It drops
// duplicate events, puts each session's events back in sequence order, checks
// the session lifecycle, tracks pending prompts and builds replies.
//
// An Engine is not safe for concurrent use: one goroutine calls all of its
// methods, and its Output must not call back into Handle, Tick, Flush or End.
// Its memory stays bounded however long it runs.
type Engine struct {
	cfg   Config
	out   Output
	subID string
	// answerless, when set, reports whether this subscription told the
	// producer it cannot answer prompts of p's kind (SetAnswerless).
	answerless func(p *Prompt) bool

	hash   hasher
	seen   hashSet // (agent_id, event_id) of recent events
	done   hashSet // (agent_id, session_id, output_id) whose final chunk was delivered
	tokens hashSet // reply tokens of recent prompts
	// answered holds the reply tokens of recent replies sent: a token is
	// never answered twice, even when a producer reuses it.
	answered hashSet
	gone     window[goneSession] // sessions forgotten to make room

	sessions   map[string]*sessionState     // by session_id; see lookup
	crowded    map[sessionKey]*sessionState // sessions whose session_id's chain was full; see lookup
	tracked    int                          // sessions in the table
	overflowed bool                         // a live session was forgotten to make room
	live       sessionList                  // least recently active first
	over       sessionList                  // ended sessions, least recently active first
	waiting    deadlineHeap
	held       int             // entries in all reorder queues
	maxHeld    int             // bound on held
	resending  []*sessionState // sessions counting events sent again (resent.go)
	resentAt   time.Time       // when the latest event sent again was dropped

	pending   []*pendingPrompt // ordered by Number
	bounds    promptBounds     // pending prompts per agent and token; floods
	recent    []*Prompt        // recently settled prompts, for precise errors
	number    int              // last prompt number given
	promptDue time.Time        // earliest reminder or expiry; zero when none
	filtered  bool             // event filters are in force (Filtered)
}

// Filtered tells the engine whether event filters are in force. A producer
// leaves out the events the filters exclude, but their sequence numbers
// were used all the same: while filtered, numbers that never arrive are
// still waited for (so order holds) and then given up without a "gap" or
// "joined" warning, since they are most likely events you asked not to
// hear.
func (e *Engine) Filtered(on bool) { e.filtered = on }

// New returns an Engine that reports to out.
func New(cfg Config, out Output) *Engine {
	if cfg.ReorderWait <= 0 {
		cfg.ReorderWait = defaultReorderWait
	}
	if cfg.ReorderWindow <= 0 {
		cfg.ReorderWindow = defaultReorderWindow
	}
	if cfg.DedupeWindow <= 0 {
		cfg.DedupeWindow = defaultDedupeWindow
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = defaultMaxSessions
	}
	if cfg.MaxPendingPerAgent <= 0 {
		cfg.MaxPendingPerAgent = defaultMaxPendingPerAgent
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = defaultMaxPending
	}
	return &Engine{
		cfg:      cfg,
		out:      out,
		seen:     newHashSet(cfg.DedupeWindow),
		done:     newHashSet(outputWindow),
		tokens:   newHashSet(tokenWindow),
		answered: newHashSet(tokenWindow),
		gone:     window[goneSession]{max: cfg.MaxSessions},
		sessions: make(map[string]*sessionState),
		maxHeld:  max(defaultMaxHeld, cfg.ReorderWindow),
	}
}

// SetSubscriptionID sets the subscription_id written into every reply built
// from now on. While it is empty, replies leave the field out.
func (e *Engine) SetSubscriptionID(id string) { e.subID = id }

// SetAnswerless gives the engine a way to know whether this subscription
// told the producer that nobody here can answer prompts of a prompt's kind:
// a prompt the agent then stops waiting for took its default because of
// that, and is said so, not "settled elsewhere". f is called on the
// engine's goroutine; nil means the subscription can answer.
func (e *Engine) SetAnswerless(f func(p *Prompt) bool) { e.answerless = f }

// Handle takes one received event at time now: it drops it when it is a
// duplicate, holds it while earlier events of its session are missing, and
// delivers what is ready to the Output. Held events whose wait has run out
// are released first, so callers that seldom call Tick lose nothing.
func (e *Engine) Handle(ev *protocol.Event, now time.Time) {
	if ev == nil {
		return
	}
	if d := e.NextDeadline(); !d.IsZero() && !now.Before(d) {
		e.Tick(now)
	}
	var s *sessionState
	if ev.SessionID != "" {
		s = e.session(keyOf(ev), now)
		if ev.HasSeq && ev.Seq >= 0 && s.announced(ev.Seq) && e.sentAgain(ev) {
			e.resend(s, ev, now)
			return
		}
	}
	if e.duplicate(ev) {
		e.diagnose(now, "duplicate", ev.SessionID, ev.EventID,
			"Dropped a second copy of event "+clean(ev.EventID)+" from "+clean(ev.Producer.AgentID)+".")
		return
	}
	if s == nil {
		e.deliver(nil, ev, now)
		return
	}
	e.endResend(s, now)
	if !ev.HasSeq || ev.Seq < 0 {
		e.deliver(s, ev, now)
		return
	}
	e.sequence(s, ev, now)
}

// Tick does the work that falls due by now: it releases held events whose
// wait has run out, expires prompts whose deadline passed and reminds the
// user of prompts still waiting.
func (e *Engine) Tick(now time.Time) {
	for len(e.waiting) > 0 && !now.Before(e.waiting[0].r.deadline) {
		e.expire(e.waiting[0], now)
	}
	if d := e.resentDue(); !d.IsZero() && !now.Before(d) {
		e.endResends(now)
	}
	e.tickPrompts(now)
}

// NextDeadline returns the earliest time at which Tick has work to do, or the
// zero Time when there is none.
func (e *Engine) NextDeadline() time.Time {
	next := e.promptDue
	if len(e.waiting) > 0 {
		if d := e.waiting[0].r.deadline; next.IsZero() || d.Before(next) {
			next = d
		}
	}
	if d := e.resentDue(); !d.IsZero() && (next.IsZero() || d.Before(next)) {
		next = d
	}
	return next
}

// Holding reports whether events are held, waiting for earlier ones of
// their session: handling an event may then release them, prompts among
// them.
func (e *Engine) Holding() bool { return e.held > 0 }

// Flush releases every held event now, in order, reporting the gaps it
// leaves. Call it when the stream ends or the connection drops.
func (e *Engine) Flush(now time.Time) {
	for len(e.waiting) > 0 {
		s := e.waiting[0]
		e.flushSession(s, now)
	}
	e.endResends(now)
}

// EndKind says how a subscription ended, which decides what becomes of the
// prompts still pending.
type EndKind int

const (
	// EndClosed: the producer knows the subscription is gone — we closed
	// it, or its connection of record ended — and applies the default
	// decision of each prompt waiting for it (spec §5.8.2, §8.2.5).
	EndClosed EndKind = iota
	// EndLeft: nothing tells the producer (a stream without a subscription,
	// as in the deployed layout); its prompts are left unanswered and the
	// agent is still waiting for an answer.
	EndLeft
)

// End closes the engine's part of the subscription: it flushes held events,
// then settles every pending prompt as how says: expired with its default
// decision (EndClosed), or left unanswered (EndLeft). A prompt whose
// deadline already passed expires either way. The deliveries say
// CauseEnded; EndBecause says why.
func (e *Engine) End(now time.Time, how EndKind) { e.EndBecause(now, how, CauseEnded) }

// EndBecause is End with the cause its prompt deliveries carry (a prompt
// whose deadline passed carries CauseTimeout).
func (e *Engine) EndBecause(now time.Time, how EndKind, why Cause) {
	e.Flush(now)
	for len(e.pending) > 0 {
		if dl := e.pending[0].p.Deadline; dl.IsZero() || now.Before(dl) {
			if how == EndLeft {
				e.leavePrompt(0, now, why)
			} else {
				e.expirePrompt(0, now, why)
			}
			continue
		}
		e.expirePrompt(0, now, CauseTimeout)
	}
	e.promptDue = time.Time{}
}

// duplicate reports whether ev's (agent_id, event_id) was seen recently, and
// remembers it when it was not. Events without an event_id are never
// duplicates.
func (e *Engine) duplicate(ev *protocol.Event) bool {
	if ev.EventID == "" {
		return false
	}
	k := e.hash.sum(ev.Producer.AgentID, ev.EventID)
	if e.cfg.Dedupe != nil {
		return e.cfg.Dedupe.seenOrAdd(k)
	}
	return e.seen.seenOrAdd(k)
}

// deliver announces ev: lifecycle checks, prompt cancellation and tracking,
// then the delivery itself. s is nil for events without a session.
func (e *Engine) deliver(s *sessionState, ev *protocol.Event, now time.Time) {
	if s != nil {
		e.check(s, ev, now)
		switch {
		case resolvesPrompts(ev):
			e.resolvePrompts(ev, now)
			if ev.HasSeq && ev.Seq > s.resolvedSeq {
				s.resolvedSeq = ev.Seq
			}
		case cancelsPrompts(ev):
			e.cancelPrompts(ev, now)
		}
	}
	d := Delivery{Kind: KindEvent, At: now, Event: ev}
	var warnings []Delivery
	if isPrompt(ev) {
		d.Prompt, d.Kind, warnings = e.openPrompt(s, ev, now)
		d.Note = d.Prompt.why
	}
	if s != nil {
		warnings = append(e.link(s, &d, now), warnings...)
		if ev.HasSeq && ev.Seq > s.maxSeq {
			s.maxSeq = ev.Seq
		}
	}
	e.out.Deliver(d)
	for _, w := range warnings {
		e.out.Deliver(w)
	}
	if s != nil {
		e.unconfirmedIrreversible(s, ev, now)
	}
}

func (e *Engine) diagnose(now time.Time, code, sessionID, eventID, msg string) {
	e.out.Diagnose(Diagnostic{At: now, Code: code, SessionID: sessionID, EventID: eventID, Message: msg})
}

// clean makes a producer-chosen string safe to put in a sentence.
func clean(s string) string { return protocol.Sanitize(s) }

// oneLine is clean(s) with its line breaks and tabs turned into single
// spaces: a diagnostic is one sentence, whatever a producer put in a name.
func oneLine(s string) string { return strings.Join(strings.Fields(clean(s)), " ") }

// typeName is an event type as people say it: "tool.invoked" for
// "aaep:agent.tool.invoked".
func typeName(t string) string {
	return clean(strings.TrimPrefix(t, "aaep:agent."))
}
