package main

// agents.go: several agents in one run. Each endpoint is a member of the
// listener's subscriber.Group (its own client), with its own announcer; the
// group hands their updates to the listener's loop, a small batch at a time
// from each in turn, so one agent that floods never keeps another's lines
// waiting.

import (
	"context"
	"fmt"
	"github.com/aaep-term/aaep-term/acp"
	"net/http"
	"slices"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// agentSpec is one agent to listen to, as the command line or --agents
// gives it.
type agentSpec struct {
	Label    string // ours, checked by agentspec; "" for none
	Endpoint string
	// Terms are the terms asked of this agent (the flags', or the
	// --agents entry's); Verbosity how its events are worded.
	Terms     session.Terms
	Verbosity string
	Muted     bool
	// From an --agents entry: its token and headers (added to the
	// flags'), and its policy (in place of --policy).
	Token    string
	Header   http.Header
	Policy   *policy.Policy
	FromFile bool // Terms were settled from the file
	// Found: --local found it; its label comes from a socket's name, not
	// from the user, so policy rules never match it by label.
	Found bool
	// From an --agents entry of an acp: agent: its mode, first task and
	// working directory, in place of --agent-mode, --task and the
	// listener's directory; "" for those.
	ACPMode, ACPTask, ACPDir string

	entry     *agentEntry // the file's entry, until settleAgentsFile
	entryName string      // "entry 2 (mail)"
}

// agent is one subscription of the run: a member of the listener's group,
// with its announcer. Only the loop's goroutine touches its fields.
type agent struct {
	*subscriber.Member
	c     *subscriber.Client // the member's
	ann   *announce.Announcer
	terms session.Terms
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
func (l *listener) agents() []*agent {
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
	l    *listener
	a    *agent
	next announce.Sink
}

func (s agentSink) Announce(an announce.Announcement) error {
	if s.l.quiet(s.a) && an.Priority != announce.Critical && an.Prompt == nil {
		return nil
	}
	an.Source = s.a.Tag() // the user's label or endpoint: agents take turns by it
	if s.l.multi {
		var note string
		an.Agent, note = s.l.group.DisplayNote(s.a.Member, an.Agent)
		s.l.say(note) // two agents now share the name: said once
	}
	return s.next.Announce(an)
}

func (s agentSink) Diagnostic(d session.Diagnostic) error {
	ds, ok := s.next.(announce.DiagnosticSink)
	if !ok {
		return nil
	}
	if s.l.multi {
		d.Message = s.a.Tag() + ": " + d.Message
	}
	return ds.Diagnostic(d)
}

// quiet reports whether agent a says only its critical events and
// prompts: muted, or another agent is the only one heard.
func (l *listener) quiet(a *agent) bool {
	return a.muted || l.only != nil && l.only != a
}

// startAgent subscribes to one more agent and starts handing its updates
// to the loop.
func (l *listener) startAgent(ctx context.Context, spec agentSpec) *agent {
	a := l.addAgent(spec, func(cfg subscriber.Config) *subscriber.Client {
		return subscriber.Start(ctx, spec.Endpoint, cfg)
	})
	l.group.Feed(a.Member)
	return a
}

// addAgent adds an agent whose client start makes, with the configuration
// the flags and spec give it; nobody takes its updates yet.
func (l *listener) addAgent(spec agentSpec, start func(subscriber.Config) *subscriber.Client) *agent {
	a := &agent{terms: spec.Terms, muted: spec.Muted}
	cfg := l.o.announceConfig(l.sinkFailed)
	if spec.Verbosity != "" {
		cfg.Verbosity = spec.Verbosity
	}
	sinks := make([]announce.Sink, len(l.sinks))
	for i, s := range l.sinks {
		sinks[i] = agentSink{l: l, a: a, next: s}
	}
	a.ann = announce.New(cfg, sinks...)
	ccfg := l.o.clientConfig(spec.Endpoint)
	ccfg.Terms = spec.Terms
	if spec.Token != "" || len(spec.Header) > 0 {
		sse := &ccfg.Transport.SSE
		if spec.Token != "" {
			sse.Token = spec.Token
		}
		sse.Header = sse.Header.Clone()
		if sse.Header == nil {
			sse.Header = http.Header{}
		}
		for k, v := range spec.Header {
			sse.Header[k] = v
		}
		ccfg.Credentials = cliflag.CredentialsWarning(spec.Endpoint, sse.Token, sse.Header, l.o.TLS.Cert != "")
	}
	if spec.Policy != nil {
		ccfg.Gate = policy.NewGate(spec.Policy, l.o.AutoReply == protocol.DecisionReject)
	}
	whom := policy.Configured{Label: spec.Label, Endpoint: spec.Endpoint}
	if spec.Found {
		whom.Label = ""
	}
	ccfg.Gate.For(whom) // rules bind to what the user configured, not to what the producer says
	l.bridgeFor(a, spec, &ccfg)
	a.Member = l.group.Join(spec.Label, spec.Endpoint, ccfg, func(cfg subscriber.Config) *subscriber.Client {
		a.c = start(cfg)
		return a.c
	})
	a.Value = a
	return a
}

// readAgents reads the endpoints given as arguments, each ENDPOINT or
// LABEL=ENDPOINT, into o.Agents.
func (o *options) readAgents(args []string) error {
	parsed, err := agentspec.ParseAll(args)
	if err != nil {
		return err
	}
	for _, p := range parsed {
		if err := transport.CheckEndpoint(p.Endpoint); err != nil {
			return err
		}
		o.Agents = append(o.Agents, agentSpec{Label: p.Label, Endpoint: p.Endpoint})
	}
	if len(o.Agents) > 1 || o.Local {
		for _, a := range o.Agents {
			if a.Endpoint == "-" {
				return fmt.Errorf("- (events on standard input) cannot be listened to with other endpoints or --local: standard input takes your commands")
			}
		}
	}
	if len(o.Agents) > 0 {
		o.Endpoint = o.Agents[0].Endpoint
	}
	return nil
}

// agentSpecs are the agents to listen to, each with the terms to ask of
// it: the flags' (as settled by then), able to answer where its binding
// has a way back.
func (o *options) agentSpecs() []agentSpec {
	specs := slices.Clone(o.Agents)
	if len(specs) == 0 && o.Demo { // its endpoint is known once it runs
		specs = []agentSpec{{Endpoint: o.Endpoint}}
	}
	for i := range specs {
		s := &specs[i]
		if !s.FromFile {
			s.Terms = o.Terms
		} else {
			s.Terms.CanConfirm, s.Terms.CanClarify = o.Terms.CanConfirm, o.Terms.CanClarify // as the run settled them
		}
		if !o.Demo && !transport.BindingOf(s.Endpoint).Answers() {
			s.Terms.CanConfirm, s.Terms.CanClarify = false, false
		}
	}
	return specs
}

// eventsOnStdin reports whether standard input carries the events (the
// endpoint -), not commands.
func (o *options) eventsOnStdin() bool { return o.Endpoint == "-" }

// mayAnswer reports whether any agent of the run has a way back for
// answers: the demo's, a local producer's socket, or an endpoint's
// binding.
func (o *options) mayAnswer() bool {
	if o.Demo || o.Local || transport.BindingOf(o.Endpoint).Answers() {
		return true
	}
	for _, a := range o.Agents {
		if transport.BindingOf(a.Endpoint).Answers() {
			return true
		}
	}
	return false
}

// severalAgents reports whether the run has more than one agent, or may
// get more (--local): then speech and braille name whose words they say.
func (o *options) severalAgents() bool {
	return len(o.Agents) > 1 || o.Local
}
