package console

// agents.go: several agents in one run. Each endpoint is a member of the
// listener's subscriber.Group (its own client), with its own announcer; the
// group hands their updates to the listener's loop, a small batch at a time
// from each in turn, so one agent that floods never keeps another's lines
// waiting.

import (
	"context"

	"github.com/aaep-term/aaep-term/acp"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// agent is one subscription of the run: a member of the listener's group,
// with its announcer. Only the loop's goroutine touches its fields.
type agent struct {
	*subscriber.Member
	c     *subscriber.Client // the member's
	ann   *announce.Announcer
	terms session.Terms
	// label is spec.Label as given, not told apart from another's
	// (Config.NameByLabel names the agent by it).
	label string
	// bridge runs an agent started as acp:COMMAND (acpcmds.go); nil for
	// any other.
	bridge *acp.Bridge

	muted bool
	// connecting is the "Connecting to …" line held until the first
	// connection is made (then "Listening to …" says it) or fails;
	// connected is set once it was made. These belong to the loop
	// (status.go).
	connecting string
	connected  bool
	// troubled is set while a refusal, a retry or a lost connection was
	// said and no subscription since: the next one is said too.
	troubled bool
	// found says the agent was found while running (--local); closing,
	// that it was closed to make room for another (makeRoom). Both belong
	// to the listener's loop.
	found, closing bool
}

// agents are the agents of the run still listed (subscriber.Group.Members):
// every live one, and the last few ended.
func (l *Listener) agents() []*agent {
	ms := l.group.Members()
	as := make([]*agent, len(ms))
	for i, m := range ms {
		as[i] = m.Value.(*agent)
	}
	return as
}

// agentSink is an output as one agent's announcer sees it: in a run of
// several agents each line is given its agent's name (display), and a
// muted agent (mute, only) says only its critical events and prompts.
type agentSink struct {
	l    *Listener
	a    *agent
	next announce.Sink
	ref  announce.RefSink // next, when it takes an announcement through a pointer
}

func (s *agentSink) Announce(an announce.Announcement) error { return s.AnnounceRef(&an) }

// AnnounceRef implements announce.RefSink: the announcement goes on to the
// next sink through a pointer when it takes one, with the agent's label and
// name set in it for that call and put back after.
func (s *agentSink) AnnounceRef(an *announce.Announcement) error {
	if s.l.quiet(s.a) && an.Priority != announce.Critical && an.Prompt == nil {
		return nil
	}
	source, name := an.Source, an.Agent
	an.Source = s.a.Tag() // the user's label or endpoint: agents take turns by it
	switch {
	case s.l.multi && s.l.cfg.NameByLabel:
		an.Agent = s.a.label
	case s.l.multi:
		var note string
		an.Agent, note = s.l.group.DisplayNote(s.a.Member, an.Agent)
		s.l.say(note) // two agents now share the name: said once
	}
	var err error
	if s.ref != nil {
		err = s.ref.AnnounceRef(an)
	} else {
		err = s.next.Announce(*an)
	}
	an.Source, an.Agent = source, name
	return err
}

func (s *agentSink) Diagnostic(d session.Diagnostic) error {
	ds, ok := s.next.(announce.DiagnosticSink)
	if !ok {
		return nil
	}
	switch {
	case s.l.multi && s.l.cfg.NameByLabel:
		d.Message = s.a.label + ": " + d.Message
	case s.l.multi:
		d.Message = s.a.Tag() + ": " + d.Message
	}
	return ds.Diagnostic(d)
}

// quiet reports whether agent a says only its critical events and
// prompts: muted, or another agent is the only one heard.
func (l *Listener) quiet(a *agent) bool {
	return a.muted || l.only != nil && l.only != a
}

// StartAgent subscribes to one more agent and starts handing its updates
// to the loop.
func (l *Listener) StartAgent(ctx context.Context, spec AgentSpec) {
	l.startAgent(ctx, spec)
}

// startAgent is StartAgent, returning the agent.
func (l *Listener) startAgent(ctx context.Context, spec AgentSpec) *agent {
	a := l.addAgent(spec, func(cfg subscriber.Config) *subscriber.Client {
		return subscriber.Start(ctx, spec.Endpoint, cfg)
	})
	l.group.Feed(a.Member)
	return a
}

// addAgent adds an agent whose client start makes, with the configuration
// Config.Client gives spec; nobody takes its updates yet. When nobody can
// answer (standard input closed, no rules), it is asked as unable to.
func (l *Listener) addAgent(spec AgentSpec, start func(subscriber.Config) *subscriber.Client) *agent {
	if l.inputGone && l.othersAnswer() == "" { // nobody can answer it, as the others were told
		spec.Terms.CanConfirm, spec.Terms.CanClarify = false, false
	}
	a := &agent{terms: spec.Terms, muted: spec.Muted, label: spec.Label}
	cfg := l.announceConfig()
	if spec.Verbosity != "" {
		cfg.Verbosity = spec.Verbosity
	}
	sinks := make([]announce.Sink, len(l.sinks))
	for i, s := range l.sinks {
		ref, _ := s.(announce.RefSink)
		sinks[i] = &agentSink{l: l, a: a, next: s, ref: ref}
	}
	a.ann = announce.New(cfg, sinks...)
	ccfg := l.cfg.Client(spec)
	ccfg.Terms = spec.Terms
	l.bridgeFor(a, spec, &ccfg)
	a.Member = l.group.Join(spec.Label, spec.Endpoint, ccfg, func(cfg subscriber.Config) *subscriber.Client {
		a.c = start(cfg)
		return a.c
	})
	a.Value = a
	return a
}
