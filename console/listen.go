package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// output is what both line mode and --json offer.
type output interface {
	announce.Sink
	announce.DiagnosticSink
	Say(now time.Time, text string) error
	Flush() error
}

// listener is one run of aaep-listen: the client's updates and the typed
// commands meet on one goroutine (loop), which owns the outputs.
type listener struct {
	o *options
	// group is the agents, their one stream of updates, their prompts.
	group *subscriber.Group
	// multi: lines name their agent (several agents, or one with a label).
	multi bool
	only  *agent // "only AGENT": the one heard in full; nil for all
	// changes, when not nil, brings agents to add or say gone while
	// running (--local; see addAgent); stopWatching ends them (quit).
	changes      <-chan agentChange
	stopWatching func()
	sinks        []announce.Sink // the outputs every agent's announcer shares
	// silencer is an announcer over the outputs as they are, for "stop".
	silencer *announce.Announcer
	out      output
	audit    *audit.Log // --audit; nil without
	// input is what the user asks for, typed: the TUI's actions, or lines
	// read and parsed (commands.go); nil reads standard input.
	input <-chan line.Command
	// answers are the braille display's, typed; nil without a display.
	answers <-chan line.Command

	notes     *outputs.Notes // lines from the sinks' goroutines
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

	endErr error // why the run failed, from the End
	ended  bool  // every agent has ended
}

// newListener is a listener of o writing to out and the other sinks.
func newListener(o *options, out output, sinks ...announce.Sink) *listener {
	l := &listener{o: o, out: out, notes: outputs.NewNotes()}
	l.sinks = append([]announce.Sink{out}, sinks...)
	l.silencer = announce.New(o.announceConfig(l.sinkFailed), l.sinks...)
	specs := o.agentSpecs()
	l.multi = len(specs) > 1 || len(specs) == 1 && specs[0].Label != "" || o.Local
	n := len(specs)
	if o.Local { // agents may come: bound each as for a few more
		n = max(n, localExpected)
	}
	l.group = subscriber.NewGroup(subscriber.GroupConfig{BatchMax: o.batchMax, Expected: n, Now: o.Now, Settle: o.AnswerAfter})
	return l
}

func listen(ctx context.Context, o *options) error {
	endpoint := o.Endpoint
	if o.Demo && o.DemoAgents > 0 {
		endpoints, stop, err := startDemoAgents(o.DemoAgents, o.DemoSpeed, o.IO.Eprintf)
		if err != nil {
			return fmt.Errorf("start the demo agents: %w", err)
		}
		defer stop()
		if err := o.readAgents(endpoints); err != nil {
			return err
		}
		endpoint = o.Endpoint
	} else if o.Demo {
		d, err := startDemo(o)
		if err != nil {
			return fmt.Errorf("start the demo producer: %w", err)
		}
		defer d.stop()
		endpoint = d.url
	}

	ui, err := startTUI(o, endpoint) // nil without --tui
	notes := outputs.NewNotes()
	if err != nil {
		return err
	}
	var out output
	ended := false // the stream ran to its end: the view stays open until the user quits
	if ui != nil {
		interrupted := ctx // done on an interrupt, which ends the view too
		defer func() {
			if ended {
				ui.End(interrupted)
			} else {
				ui.Close()
			}
		}()
		out = ui
	} else if o.JSON {
		out = line.NewJSON(o.IO.Out)
	} else {
		var diag io.Writer = o.IO.ErrOut
		if o.QuietDiagnostics {
			diag = nil
		}
		out = line.NewWriter(o.IO.Out, diag, line.WriterOptions{Color: o.IO.Color, NoTime: o.noTime()})
	}
	so := o.outputs(ui != nil)
	so.Pace.SayAgents = o.severalAgents()                           // speech and braille say who speaks
	extra := outputs.Open(ctx, so, func(s string) { notes.Add(s) }) // speech, braille, notifications
	defer extra.Close()
	l := newListener(o, out, extra.List...)
	l.notes = notes
	if o.Decide.AuditFile != "" {
		if l.audit, err = audit.Open(o.Decide.AuditFile); err != nil {
			return err
		}
		defer l.audit.Close()
	}

	l.inputAtStart(ui != nil || extra.Answers != nil) // the view or a braille display may answer
	specs := o.agentSpecs()
	if o.Demo && o.DemoAgents == 0 {
		specs[0].Endpoint = endpoint
	}
	defer l.closeAll()
	if o.Local {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		changes, opening, err := watchLocal(wctx, o.getenv())
		if err != nil {
			return err
		}
		l.changes, l.stopWatching = changes, stop
		l.say(opening)
	}
	for _, spec := range specs {
		l.startAgent(ctx, spec)
	}
	if ui != nil {
		ui.attach(l)
	}
	l.answers = extra.Answers // braille answers go the way typed ones go
	err = l.loop(ctx)
	ended = true
	return err
}

// clientConfig is the subscriber's configuration from the flags.
func (o *options) clientConfig(endpoint string) subscriber.Config {
	cfg := subscriber.Config{
		Identity:    session.Identity{ID: o.SubscriberID, Name: "aaep-listen", Version: version},
		Terms:       o.Terms,
		ReorderWait: o.ReorderWait,
		DecidedBy:   o.DecidedBy,
		Transport:   o.Transport(),
		Gate:        policy.NewGate(o.Decide.policy, o.AutoReply == protocol.DecisionReject),
		Manifest:    o.manifestConfig(),
		Hints:       listenHints,
		Credentials: o.Credentials(endpoint),
		Now:         o.Now,
	}
	switch {
	case o.Sign.Off:
		cfg.NoSignerWords = "--no-sign"
	case o.Sign.key != nil:
		cfg.Signer = o.Sign.key
	}
	return cfg
}

// loop takes the agents' updates a batch at a time, and typed commands,
// until every agent has ended.
func (l *listener) loop(ctx context.Context) error {
	defer l.group.Stop()
	lines := l.input
	if lines == nil && !l.o.eventsOnStdin() { // with -, standard input is the events, not commands
		lines = line.Read(l.o.IO.In)
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
			select {
			case b := <-l.group.Critical():
				if l.batch(b) {
					return l.endErr
				}
				critFirst = false
				continue
			default:
			}
		}
		critFirst = true
		select {
		case b := <-l.group.Critical():
			if l.batch(b) {
				return l.endErr
			}
		case b := <-l.group.Batches():
			if l.batch(b) {
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
			if quit := l.do(ctx, c); quit {
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
			if c.Verb != line.VerbQuit { // accept or reject: never quit
				l.do(ctx, c)
			}
			l.flush()
		case <-l.notes.Ready():
			l.takeNotes()
			l.flush()
		}
	}
}

// batch tells one batch of an agent's updates, and reports whether the
// run has ended with it.
func (l *listener) batch(b subscriber.Batch) bool {
	for _, u := range b.Updates {
		l.update(b.Member.Value.(*agent), u)
	}
	l.flush()
	return l.ended
}

// quitAll closes every subscription: their Ends come in their streams.
func (l *listener) quitAll() {
	for _, a := range l.agents() {
		if !a.Ended() {
			go a.c.CloseBecause("You quit.")
		}
	}
}

// update tells one update of agent a.
func (l *listener) update(a *agent, u subscriber.Update) {
	l.group.Seen(a.Member, u)
	if u.Kind != subscriber.KindStatus && a.connecting != "" {
		l.sayFor(a, a.connecting) // no connection came first: say where it tried
		a.connecting = ""
	}
	if u.Kind != subscriber.KindStatus {
		l.sayOpening(a, u)
	}
	switch u.Kind {
	case subscriber.KindDelivery:
		d := u.Delivery
		if l.inputClosed != "" && d.Prompt != nil {
			l.say(l.inputClosed)
			l.inputClosed = ""
		}
		a.ann.Deliver(d)
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
func (l *listener) end(a *agent, u subscriber.Update) {
	// A stop typed just before the end still reaches the daemon
	// (which would otherwise go on with what it was given) and is
	// answered.
	l.silencing.Wait()
	l.takeNotes()
	if l.only == a {
		l.only = nil
	}
	l.o.refused = l.o.refused || a.Refused()
	if err := a.Err(); err != nil {
		if u.Text != "" {
			u.Text += " Start aaep-listen again to reconnect."
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
func (l *listener) liveNames() string {
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
func (l *listener) sayFor(a *agent, s string) {
	if s != "" && l.multi {
		if f, ok := l.out.(agentSayer); ok { // the TUI: in the agent's row
			if err := f.SayFor(l.o.Now(), a.Tag(), s); err != nil {
				l.sinkFailed(err)
			}
			return
		}
		s = a.Tag() + ": " + s
	}
	l.say(s)
}

// agentSayer is an output that shows a line about one agent as that
// agent's (the TUI: its row and its filter).
type agentSayer interface {
	SayFor(now time.Time, agent, text string) error
}

func (l *listener) say(s string) {
	if s == "" {
		return
	}
	if err := l.out.Say(l.o.Now(), s); err != nil {
		l.sinkFailed(err)
	}
}

func (l *listener) flush() {
	if err := l.out.Flush(); err != nil {
		l.sinkFailed(err)
	}
}

func (l *listener) sinkFailed(err error) {
	l.o.IO.Eprintf("aaep-listen: %v\n", err)
}

func (l *listener) takeNotes() {
	for _, s := range l.notes.Take() {
		l.say(s)
	}
}
