package console

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// Output is what both line mode and --json offer (and the TUI).
type Output interface {
	announce.Sink
	announce.DiagnosticSink
	Say(now time.Time, text string) error
	Flush() error
}

// Listener is one console: its agents' updates and the typed commands
// meet on one goroutine (Run), which owns the outputs.
type Listener struct {
	cfg Config
	// group is the agents, their one stream of updates, their prompts.
	group *subscriber.Group
	// multi: lines name their agent (several agents, or one with a label).
	multi bool
	only  *agent // "only AGENT": the one heard in full; nil for all
	// changes, when not nil, brings agents to add or say gone while
	// running (--local; see addAgent); stopWatching ends them (quit).
	changes      <-chan AgentChange
	stopWatching func()
	sinks        []announce.Sink // the outputs every agent's announcer shares
	// silencer is an announcer over the outputs as they are, for "stop".
	silencer *announce.Announcer
	out      Output
	audit    *audit.Log // --audit; nil without
	// input is what the user asks for, typed: the TUI's actions, or lines
	// read and parsed (commands.go); nil reads standard input.
	input <-chan command.Command
	// answers are the braille display's, typed; nil without a display.
	answers <-chan command.Command

	notes     *Notes         // lines from the sinks' goroutines
	silencing sync.WaitGroup // "stop" commands whose cancel is still on its way (announcing.go)
	// inputClosed is the line saying standard input ended, told before the
	// next prompt offered (where it matters), or at the end.
	inputClosed string
	// opening, when not empty, is said after the first update (input.go).
	opening string
	// inputGone: standard input can bring nothing more (input.go).
	inputGone bool
	// keptAlways: an "always" answer was kept, so the gate may answer.
	keptAlways bool
	// held is an accept that cannot be undone, waiting for yes (commands.go).
	held *heldAccept

	// muted drops every update untold but its End's mark (a capture
	// played fast up to a seek's target); at is the time of the update
	// being told (Config.UpdateTime).
	muted bool
	at    time.Time

	endErr  error // why the run failed, from the End
	ended   bool  // every agent has ended
	refused bool  // a producer refused the subscription and never accepted it
}

// New is a console of cfg writing to out and the other sinks. Its agents
// are added with StartAgent; Run then tells their updates.
func New(cfg Config, out Output, sinks ...announce.Sink) *Listener {
	l := &Listener{cfg: cfg, out: out, notes: NewNotes(), multi: cfg.Multi}
	l.sinks = append([]announce.Sink{out}, sinks...)
	l.silencer = announce.New(l.announceConfig(), l.sinks...)
	l.group = subscriber.NewGroup(subscriber.GroupConfig{BatchMax: cfg.BatchMax, Expected: cfg.Expected, Now: cfg.Now, Settle: cfg.Settle})
	return l
}

// SetNotes makes notes the lines from the sinks' goroutines, said on the
// loop's: the outputs opened before the console say their trouble there.
func (l *Listener) SetNotes(n *Notes) { l.notes = n }

// SetAudit makes log the audit log of every prompt and decision (--audit).
func (l *Listener) SetAudit(log *audit.Log) { l.audit = log }

// SetAnswers makes answers the braille display's answers, typed: they go
// the way typed ones go, but never quit.
func (l *Listener) SetAnswers(answers <-chan command.Command) { l.answers = answers }

// Watch makes changes the agents to add or say gone while running
// (--local); stop ends them (quit).
func (l *Listener) Watch(changes <-chan AgentChange, stop func()) {
	l.changes, l.stopWatching = changes, stop
}

// Refused reports whether a producer refused the subscription and never
// accepted it (with several agents: any of them).
func (l *Listener) Refused() bool { return l.refused }

// Say says a line of the console's own.
func (l *Listener) Say(s string) { l.say(s) }

// announceConfig is the configuration of a new announcer.
func (l *Listener) announceConfig() announce.Config {
	c := l.cfg.Announce
	c.OnError = l.sinkFailed
	return c
}

// Run takes the agents' updates a batch at a time, and typed commands,
// until every agent has ended.
func (l *Listener) Run(ctx context.Context) error {
	defer l.group.Stop()
	lines := l.input
	if lines == nil && !l.cfg.EventsOnStdin { // with -, standard input is the events, not commands
		lines = line.Read(l.cfg.IO.In)
	}
	if l.group.Live() == 0 && l.changes == nil {
		return nil
	}
	// A batch with a critical update is taken first, whatever else is
	// ready, but never twice in a row that way: an agent sending only
	// critical events cannot keep typed commands or the others waiting.
	critFirst := true
	for {
		if critFirst {
			if b, ok := l.group.TakeCritical(); ok {
				l.batch(b)
				l.flush()
				if l.ended {
					return l.endErr
				}
				critFirst = false
				continue
			}
		}
		afterCritical := !critFirst
		critFirst = true
		select {
		case <-l.group.Ready():
			if l.drain(!afterCritical) {
				return l.endErr
			}
		case ch, ok := <-l.changes:
			if !ok { // the watch ended; it said why
				l.changes = nil
				if l.group.Live() == 0 {
					return l.endErr
				}
				continue
			}
			l.change(ctx, ch)
			l.flush()
		case c, ok := <-lines:
			if !ok {
				// Standard input closed: keep listening. A braille
				// display can still answer.
				lines = nil
				if l.answers == nil {
					l.inputEnded(ctx)
				}
				continue
			}
			if quit := l.Do(ctx, c); quit {
				l.quitAll()
				lines, l.answers = nil, nil
				if l.changes != nil { // --local: no agent comes after quit
					l.stopWatching()
					l.changes = nil
					if l.group.Live() == 0 {
						return l.endErr
					}
				}
			}
			l.flush()
		case c := <-l.answers:
			if c.Verb != command.VerbQuit { // accept or reject: never quit
				l.Do(ctx, c)
			}
			l.flush()
		case <-l.notes.Ready():
			l.takeNotes()
			l.flush()
		}
	}
}

// maxDrain is the most batches drain tells before the loop looks at
// typed commands again: a burst of a few hundred agents.
const maxDrain = 256

// drain tells the batches waiting, maxDrain at most, and reports whether
// the run has ended. A batch with a critical update goes first (from the
// first batch when critFirst: the batch told before was not one), though
// never twice in a row, and is written at once; the others' lines are
// written together at the end, in one write where they fit, not one write
// per agent.
func (l *Listener) drain(critFirst bool) bool {
	defer l.flush()
	for range maxDrain {
		var b subscriber.Batch
		ok, critical := false, false
		if critFirst {
			b, ok = l.group.TakeCritical()
			critical = ok
		}
		if !ok {
			if b, ok = l.group.Take(); !ok {
				break
			}
		}
		// A batch taken in turn may hold a critical update too.
		urgent := critical || b.Critical()
		l.batch(b)
		if l.ended {
			return true
		}
		if urgent {
			l.flush()
		}
		critFirst = !critical
	}
	return false
}

// batch tells one batch of an agent's updates (unflushed) and gives it
// back.
func (l *Listener) batch(b subscriber.Batch) {
	a := b.Member.Value.(*agent)
	for i := range b.Updates {
		l.update(a, &b.Updates[i])
	}
	l.group.Done(b)
}

// quitAll closes every subscription: their Ends come in their streams.
func (l *Listener) quitAll() {
	for _, a := range l.agents() {
		if !a.Ended() {
			go a.c.CloseBecause("You quit.")
		}
	}
}

// update tells one update of agent a. u is not kept nor changed: a
// pointer, as the updates of a flood are told by the hundred thousand and
// an Update is some three hundred bytes to copy at every call.
func (l *Listener) update(a *agent, u *subscriber.Update) {
	l.group.Seen(a.Member, u)
	if l.muted {
		return
	}
	l.at = u.At
	if u.Kind != subscriber.KindStatus && a.connecting != "" {
		l.sayFor(a, a.connecting) // no connection came first: say where it tried
		a.connecting = ""
	}
	if u.Kind != subscriber.KindStatus {
		l.sayOpening(a, u)
	}
	switch u.Kind {
	case subscriber.KindDelivery:
		d := &u.Delivery
		if l.cfg.HideSentReplies && d.Kind == session.KindReplySent {
			return
		}
		if l.inputClosed != "" && d.Prompt != nil {
			l.say(l.inputClosed)
			l.inputClosed = ""
		}
		a.ann.Tell(d)
		l.writeAudit(a, u)
	case subscriber.KindDiagnostic:
		a.ann.Diagnose(u.Diagnostic)
	case subscriber.KindStatus:
		l.status(a, u)
		l.sayOpening(a, u)
	case subscriber.KindReply:
		l.writeAudit(a, u)
		l.sayFor(a, u.Text)
	case subscriber.KindBreak:
		a.ann.Flush(u.At)
	case subscriber.KindEnd:
		l.end(a, u)
	}
}

// end tells agent a's End; the run ends with the last agent's.
func (l *Listener) end(a *agent, u *subscriber.Update) {
	if l.cfg.PlainEnd {
		l.sayFor(a, u.Text)
		return
	}
	// A stop typed just before the end still reaches the daemon
	// (which would otherwise go on with what it was given) and is
	// answered.
	l.silencing.Wait()
	l.takeNotes()
	if l.only == a {
		l.only = nil
	}
	l.refused = l.refused || a.Refused()
	if err := a.Err(); err != nil {
		if u.Text != "" {
			u.Text += " Start " + l.cfg.Name + " again to reconnect."
		}
		if l.multi {
			err = fmt.Errorf("%s: %w", a.Tag(), err)
		}
		if l.endErr == nil {
			l.endErr = err
		}
	}
	if live := l.group.Live(); live > 0 || l.changes != nil {
		l.sayFor(a, u.Text)
		if l.multi && live > 0 {
			l.say(fmt.Sprintf("%s has ended; still listening to %s.", a.Tag(), l.liveNames()))
		}
		return
	}
	l.ended = true
	if l.inputClosed != "" {
		l.say(l.inputClosed)
		l.inputClosed = ""
	}
	l.sayFor(a, u.Text)
	if l.multi && l.group.Added() > 1 {
		l.say("Every agent has ended.")
	}
}

// liveNames lists the agents not ended, in words.
func (l *Listener) liveNames() string {
	var s []string
	for _, a := range l.agents() {
		if !a.Ended() {
			s = append(s, a.Tag())
		}
	}
	return prose.List(s)
}

// sayFor says a line of the listener's own about agent a: in a run of
// several agents, it starts with the agent's name.
func (l *Listener) sayFor(a *agent, s string) {
	if s != "" && l.multi {
		if f, ok := l.out.(agentSayer); ok { // the TUI: in the agent's row
			if err := f.SayFor(l.now(), a.Tag(), s); err != nil {
				l.sinkFailed(err)
			}
			return
		}
		name := a.Tag()
		if l.cfg.NameByLabel {
			name = protocol.Name(a.label)
		}
		s = name + ": " + s
	}
	l.say(s)
}

// now is the time of a line said now: the update's being told with
// Config.UpdateTime, else Config.Now.
func (l *Listener) now() time.Time {
	if l.cfg.UpdateTime {
		return l.at
	}
	return l.cfg.Now()
}

// agentSayer is an output that shows a line about one agent as that
// agent's (the TUI: its row and its filter).
type agentSayer interface {
	SayFor(now time.Time, agent, text string) error
}

func (l *Listener) say(s string) {
	if s == "" {
		return
	}
	if err := l.out.Say(l.now(), s); err != nil {
		l.sinkFailed(err)
	}
}

func (l *Listener) flush() {
	if err := l.out.Flush(); err != nil {
		l.sinkFailed(err)
	}
}

func (l *Listener) sinkFailed(err error) {
	l.cfg.IO.Eprintf("%s: %v\n", l.cfg.Name, err)
}

func (l *Listener) takeNotes() {
	for _, s := range l.notes.Take() {
		l.say(s)
	}
}

// writeAudit logs what u, from agent a, adds to the --audit log: prompts,
// what became of them, and decisions; with several agents, each record
// names its agent as the lines do.
func (l *Listener) writeAudit(a *agent, u *subscriber.Update) {
	if l.audit == nil {
		return
	}
	label := ""
	if l.multi {
		label = a.Tag()
	}
	if r, ok := u.AuditRecordOf(label); ok {
		if err := l.audit.Write(r); err != nil {
			l.sinkFailed(err)
		}
	}
}

// silence carries out "stop": speech and braille drop what waits and stop
// what is being said, prompts and errors excepted. speech-dispatcher answers
// only once its voice has stopped, which may take seconds, so the listener
// goes on meanwhile and the outcome comes as a status line.
func (l *Listener) silence() {
	l.silencing.Add(1)
	go func() {
		defer l.silencing.Done()
		l.notes.Add(announce.SilenceWords(l.silencer.Silence()))
	}()
}

// Join adds an agent whose client start makes, over a connection of the
// caller's (a capture played, a test's): nobody takes its updates from
// the group; the caller drives its client and has them told with Drain.
func (l *Listener) Join(spec AgentSpec, start func(subscriber.Config) *subscriber.Client) *subscriber.Member {
	return l.addAgent(spec, start).Member
}

// Drain tells every update the agents' clients have queued, agent by
// agent, without waiting for more, and flushes the output: Run's work for
// a caller that drives its clients itself (Join).
func (l *Listener) Drain() {
	done, cancel := context.WithCancel(context.Background())
	cancel() // queued updates only
	for _, a := range l.agents() {
		for {
			us, err := a.c.NextBatch(done, 0)
			if err != nil {
				break
			}
			for i := range us {
				l.update(a, &us[i])
			}
		}
	}
	l.flush()
}

// Ended reports whether every agent has ended, and so the run.
func (l *Listener) Ended() bool { return l.ended }

// Members are the agents still listed: every live one, and the last few
// ended (subscriber.Group.Members).
func (l *Listener) Members() []*subscriber.Member { return l.group.Members() }
