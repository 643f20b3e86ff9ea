package announce

import (
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Priority is how strongly an announcement should interrupt the user.
type Priority int

// Priorities, lowest first.
const (
	Background Priority = iota
	Normal
	Critical
)

func (p Priority) String() string {
	switch p {
	case Background:
		return "background"
	case Normal:
		return "normal"
	case Critical:
		return "critical"
	}
	return "unknown"
}

// Announcement is one thing to tell the user. Text is already sanitized and
// complete: a sink may shorten it but must not need anything else to be understood.
type Announcement struct {
	At       time.Time
	Priority Priority
	Kind     string // what happened, as a stable word: "started", "output", "confirmation", …
	Agent    string // the agent's name (sanitized), or its agent_id
	// AgentID is the producer's agent_id as sent (not sanitized; a key, never
	// shown): a session is known by AgentID and SessionID together.
	AgentID   string
	SessionID string
	// Source is whom the announcement comes from as the user configured it
	// (the label or endpoint of one watched agent), never what a producer
	// says it is; a Pacer lets sources take turns by it. Empty means Agent.
	Source string
	Text   string
	Lang   string // BCP 47 tag of Text, when known
	RTL    bool   // Text is right-to-left
	// Theirs are the byte ranges of Text that are the producer's words,
	// in order; the rest is ours (labels such as "Finished:" and "Error:").
	// The Announcer always sets it (empty when all the words are ours); nil
	// means nobody said, and an output treats all of Text as the producer's.
	Theirs []protocol.Span
	// LogOnly keeps the announcement to the line and JSON output: speech
	// and braille leave it out (per-type "speak": false in the settings).
	LogOnly bool
	// Rule is, for a safety warning about a rule aaep-replay check applies
	// too, its code (protocol.Rule…); empty otherwise.
	Rule string

	Event  *protocol.Event // the event announced, when there is one
	Prompt *session.Prompt // the prompt, for prompt announcements
	Reply  []byte          // the reply body, for Kind "reply-sent"
}

// Sink receives announcements in order. Announce is called from one goroutine.
type Sink interface {
	Announce(Announcement) error
}

// RefSink is implemented by sinks that also take an announcement through a
// pointer: an Announcement is some 240 bytes, copied at every call of
// Announce, and every event of a flood is one. AnnounceRef does what
// Announce does; it does not keep an, and leaves *an as it found it (it
// may change it while it runs), for the sinks after it.
type RefSink interface {
	AnnounceRef(an *Announcement) error
}

// DiagnosticSink is implemented by sinks that also show diagnostics.
type DiagnosticSink interface {
	Diagnostic(session.Diagnostic) error
}

// Config chooses how events are put into words.
type Config struct {
	// Verbosity picks summary_terse, summary_normal or summary_detailed:
	// "terse", "normal" or "detailed". Empty means "normal".
	Verbosity string
	// OnError is told when a sink fails; nil ignores sink errors.
	OnError func(error)
	// Types override verbosity, priority and speech per event type, keyed
	// by normalized type (see Settings and ParseSettings).
	Types map[string]TypeSettings
	// Languages are the user's BCP 47 tags, preferred first; events are
	// announced in the first one they offer (see lang.go).
	Languages []string
}

// Announcer implements session.Output: it words every delivery and passes the
// result to its sinks. It is not safe for concurrent use.
type Announcer struct {
	cfg   Config
	sinks []Sink
	refs  []RefSink // for each sink, itself when it is a RefSink; else nil
	// out is the announcement the sinks are given: the Announcer's own,
	// on the heap once, which RefSinks take through a pointer (a pointer
	// given through an interface moves what it points to to the heap: an
	// announcement worded on the stack would be allocated every time).
	// Tell words the announcements of most events in it; send copies any
	// other into it.
	out       *Announcement
	streams   *streams
	langNoted map[sessionKey]bool // sessions told they are not in the user's language
	spans     []protocol.Span     // what is left of the block emitTheirs takes from
	// named is the producer named last and its name, sanitized: the
	// events of one agent repeat it, and the same name reads the same.
	named struct {
		id, said string
		name     protocol.Text
	}
}

// New returns an Announcer writing to sinks.
func New(cfg Config, sinks ...Sink) *Announcer {
	if cfg.Verbosity == "" {
		cfg.Verbosity = "normal"
	}
	refs := make([]RefSink, len(sinks))
	for i, s := range sinks {
		refs[i], _ = s.(RefSink)
	}
	return &Announcer{cfg: cfg, sinks: sinks, refs: refs, out: new(Announcement), streams: newStreams(maxStreams, maxStreamBytes)}
}

// Deliver words d and announces it; streamed output may be held until a
// sentence is complete.
func (a *Announcer) Deliver(d session.Delivery) { a.Tell(&d) }

// Tell is Deliver of *d, which it neither keeps nor changes: a console
// tells each update's delivery where it is, not a copy of it.
func (a *Announcer) Tell(d *session.Delivery) {
	if len(a.cfg.Languages) > 0 {
		ld := a.localize(*d)
		d = &ld
	}
	ev := d.Event
	if d.Kind == session.KindEvent && ev != nil {
		switch {
		case ev.Type == protocol.TypeOutputStreaming:
			ready, evicted := a.streams.add(ev)
			if evicted != nil {
				a.emitPending(d.At, *evicted)
			}
			for _, text := range ready {
				var an Announcement
				a.base(&an, d, "output", text)
				a.emitTheirs(&an)
			}
			return
		case ev.IsTerminal():
			// Whatever the agent said last is read before it finishes.
			for _, text := range a.streams.flushSession(ev.Producer.AgentID, ev.SessionID) {
				var an Announcement
				a.base(&an, d, "output", protocol.Theirs(text))
				an.Priority, an.Event, an.Prompt = Normal, nil, nil
				a.emit(&an)
			}
		}
	}
	verbosity := a.verbosity(ev)
	if d.Kind == session.KindEvent && ev != nil && d.Note == "" {
		if kind, summary := alone(ev, verbosity); summary != "" {
			an := a.out // nothing is being sent: no sink runs
			a.base(an, d, kind, summary)
			a.emitTheirs(an)
			return
		}
	}
	kind, text := describe(*d, verbosity)
	if d.Kind == session.KindEvent && d.Note != "" {
		text = prose.Join(text, d.Note) // how a tool call and a confirmation relate
	}
	an := a.out
	a.base(an, d, kind, text)
	a.emit(an)
}

// Diagnose passes d to the sinks that show diagnostics.
func (a *Announcer) Diagnose(d session.Diagnostic) {
	for _, s := range a.sinks {
		if ds, ok := s.(DiagnosticSink); ok {
			a.report(ds.Diagnostic(d))
		}
	}
}

// Flush announces any streamed output still held, as at the end of a stream.
func (a *Announcer) Flush(now time.Time) {
	for _, p := range a.streams.flushAll() {
		a.emitPending(now, p)
	}
}

// emitPending reads out text held for an output that is not being fed now.
func (a *Announcer) emitPending(at time.Time, p pending) {
	a.emit(&Announcement{At: at, Priority: Normal, Kind: "output", Agent: p.agent, AgentID: p.agentID, SessionID: p.session, Text: protocol.Theirs(p.text), Lang: p.lang, RTL: p.rtl})
}

// base fills *an with what every announcement of d says: its time, kind
// and text, the agent, the session, the language and the priority. Filled
// in place: an announcement is some 240 bytes, and a flood's every event
// is one. Each of its fields is set once, those base does not fill to
// their zero value (TestBaseSetsEveryField): assigning a composite value
// built the whole of it aside first (an might alias d) and then copied
// it, and clearing it first wrote every field twice.
func (a *Announcer) base(an *Announcement, d *session.Delivery, kind, text string) {
	an.At, an.Kind, an.Text, an.Priority, an.Rule = d.At, kind, text, Normal, d.Rule
	an.Prompt, an.Reply, an.Event = d.Prompt, d.Reply, d.Event
	an.Source, an.Theirs, an.LogOnly = "", nil, false
	if ev := d.Event; ev != nil {
		an.Agent = a.agentName(ev)
		an.AgentID = ev.Producer.AgentID
		an.SessionID = ev.SessionID
		an.Lang = ev.Localization.PrimaryLanguage
		if ev.Language != "" {
			an.Lang = ev.Language
		}
		an.RTL = ev.Localization.TextDirection == "rtl"
		switch {
		case ev.IsCritical():
			an.Priority = Critical
		case ev.Urgency == protocol.UrgencyBackground:
			an.Priority = Background
		}
	} else {
		an.Agent, an.AgentID, an.SessionID, an.Lang, an.RTL = "", "", "", "", false
	}
	switch d.Kind {
	case session.KindPromptExpired, session.KindSafetyWarning, session.KindPromptNotOffered, session.KindPromptLeft:
		an.Priority = Critical
	case session.KindPromptReminder:
		an.Priority = reminderPriority(*d)
	case session.KindPromptCancelled, session.KindPromptStale, session.KindReplySent, session.KindPromptResolved:
		an.Priority = Normal
	}
}

// emit passes an to the sinks, with the marks of the producer's words
// (protocol.Theirs) taken out of its text and kept as its Theirs ranges.
func (a *Announcer) emit(an *Announcement) {
	an.Text, an.Theirs = protocol.SplitTheirs(an.Text)
	if an.Text == "" {
		return
	}
	if an.Theirs == nil {
		an.Theirs = []protocol.Span{}
	}
	a.send(an)
}

// send passes an, its Theirs set, to the sinks, as a.out.
func (a *Announcer) send(an *Announcement) {
	if an != a.out {
		*a.out = *an
	}
	out := a.out
	if len(a.cfg.Types) > 0 {
		a.override(out)
	}
	for i, s := range a.sinks {
		if r := a.refs[i]; r != nil {
			a.report(r.AnnounceRef(out))
		} else {
			a.report(s.Announce(*out))
		}
	}
}

// emitTheirs is emit for an announcement whose text is all the
// producer's words, sanitized and not marked: marking them (protocol.Theirs)
// to take the marks out again is skipped when it would change nothing else,
// their first and last characters being ASCII and not blank, and no byte
// of theirs the first of a mark's (U+2068 and U+2069 begin with 0xE2).
func (a *Announcer) emitTheirs(an *Announcement) {
	t := an.Text
	if t == "" || !graphicASCII(t[0]) || !graphicASCII(t[len(t)-1]) || strings.IndexByte(t, 0xe2) >= 0 {
		an.Text = protocol.Theirs(t)
		a.emit(an)
		return
	}
	if len(a.spans) == 0 {
		a.spans = make([]protocol.Span, spanBlock)
	}
	an.Theirs, a.spans = a.spans[:1:1], a.spans[1:]
	an.Theirs[0] = protocol.Span{Start: 0, End: len(t)}
	a.send(an)
}

// spanBlock is how many one-span Theirs an Announcer allocates at a time:
// each announcement keeps its own element, never written again.
const spanBlock = 128

// graphicASCII reports an ASCII letter, digit or mark: not blank, not a
// control character.
func graphicASCII(c byte) bool { return c > ' ' && c < 0x7f }

func (a *Announcer) report(err error) {
	if err != nil && a.cfg.OnError != nil {
		a.cfg.OnError(err)
	}
}

// agentName is agentName(ev), remembered while the producer's ID and name
// stay the same.
func (a *Announcer) agentName(ev *protocol.Event) string {
	n := &a.named
	if ev.Producer.AgentID != n.id || ev.Producer.AgentName != n.name || n.said == "" {
		// Copies: the event's strings share its frame's bytes (up to
		// MaxFrameBytes), all kept alive as long as one of them is,
		// for as long as the agent keeps its name.
		n.id, n.name, n.said = strings.Clone(ev.Producer.AgentID), protocol.Text(strings.Clone(string(ev.Producer.AgentName))), strings.Clone(agentName(ev))
	}
	return n.said
}

// agentName names the agent that sent ev, or says it is unknown.
func agentName(ev *protocol.Event) string {
	if n := Agent(ev); n != "" {
		return n
	}
	return "Unknown agent"
}
