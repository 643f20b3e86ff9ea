package main

// agents.go: several agents in one run. Each endpoint is its own
// subscriber.Client with its own announcer; the clients' updates meet on
// the listener's loop, a small batch at a time from each in turn, so one
// agent that floods never keeps another's lines waiting.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// defaultBatchMax is the most updates one agent hands the loop at a time
// unless options.batchMax says otherwise: the agents take turns (the
// channel's senders queue in order), so a critical line of one waits for at
// most one batch of each other. 64 keeps that under a millisecond on a
// loaded machine (docs/PERFORMANCE.md, BenchmarkFloodedNeighbour) while a
// flood still writes in batches.
const defaultBatchMax = 64

// queuedAll bounds the updates all agents' clients hold waiting for the
// loop together (each holds at least 256; one agent alone, the client's
// default); the heap of a run of many agents stays about that of one.
const queuedAll = 8192

// dedupeAll is how many recent events all agents together remember to
// drop duplicates (each at least 16,384, at most the engine's 65,536): about
// 45 MB however many agents there are.
const dedupeAll = 1 << 20

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

	entry     *agentEntry // the file's entry, until settleAgentsFile
	entryName string      // "entry 2 (mail)"
	dir       string      // the file's directory
}

// agent is one subscription of the run. Only the loop's goroutine touches
// its fields.
type agent struct {
	n        int // its place in the run, from 0
	label    string
	name     string // its tag
	endpoint string
	c        *subscriber.Client
	ann      *announce.Announcer
	terms    session.Terms

	muted   bool
	ended   bool
	refused bool  // refused and never accepted
	endErr  error // why it failed, from its End
	events  int   // events announced so far
	state   string
	// termsWords is the latest status line about its terms, for agents.
	termsWords string
}

// agentBatch is a batch of one agent's updates on their way to the loop.
type agentBatch struct {
	a *agent
	u []subscriber.Update
}

// tag names the agent in lines of the listener's own and in commands:
// its label, else its endpoint, shortened to host:port for a URL (with
// "#N" when another agent has it already). It is a's alone: startAgent
// claims it before the producer can name anything.
func (a *agent) tag() string { return a.name }

// shortEndpoint is the endpoint as a line names it: host:port for a URL,
// else the endpoint itself; sanitized, as it may hold anything typed.
func shortEndpoint(e string) string {
	if u, err := url.Parse(e); err == nil && u.Host != "" {
		e = u.Host + strings.TrimSuffix(u.Path, "/")
	}
	return protocol.Name(e)
}

// names keeps every name a line has given an agent, so that no two agents
// are ever named alike: the first to use a name keeps it, and another
// agent using it (or a label, or a name given already) is told apart by its
// endpoint. Its size is bounded: past maxNames, a new name is always told
// apart.
type names struct {
	owner map[string]int  // name as shown → the agent it names
	tags  map[string]bool // the agents' tags, as they read (lookAlike)
}

const maxNames = 4096

func newNames() *names { return &names{owner: map[string]int{}, tags: map[string]bool{}} }

// claim gives name to agent n when nobody else has it; it reports whether
// n may use it.
func (ns *names) claim(name string, n int) bool {
	if o, ok := ns.owner[name]; ok {
		return o == n
	}
	if len(ns.owner) >= maxNames {
		return false
	}
	ns.owner[name] = n
	return true
}

// schemas are the compiled schemas every agent's client checks frames
// against: compiled once, not once per agent (a few megabytes each); nil
// when they do not compile, so each client says why.
func (l *listener) schemas() *protocol.Schemas {
	if l.compiled == nil {
		s, err := protocol.NewSchemas()
		if err != nil {
			return nil
		}
		l.compiled = s
	}
	return l.compiled
}

// claimTag is claim without the bound: an agent's tag is always its own.
// A name a producer gave its agent yields to a tag (a label the user gave,
// or a socket found later): the tag is the agent's own, and the producer's
// later lines are told apart.
// Tags are told apart as they read: "MAIL" or "mail " is not another
// agent's tag beside "mail".
func (ns *names) claimTag(name string, n int) bool {
	like := lookAlike(name)
	if ns.tags[like] || like == "" && ns.tags[name] {
		return false
	}
	ns.owner[name], ns.tags[like] = n, true
	if like == "" {
		ns.tags[name] = true
	}
	return true
}

// display is how lines name agent a when the producer names it name
// (sanitized already; "" when it gave none).
func (l *listener) display(a *agent, name string) string {
	if a.label != "" {
		return a.label
	}
	if name == "" || name == "Unknown agent" || l.forges(a, name) {
		return a.tag()
	}
	if plainName(name) && l.names.claim(name, a.n) {
		return name
	}
	if q := name + " (" + a.tag() + ")"; l.names.claim(q, a.n) {
		return q
	}
	return a.tag() // a hostile name took even that: the tag is a's alone
}

// forges reports whether name, given by agent a's producer, would pass for
// another agent: it is another's tag, or has one in brackets as a name
// told apart does. Names are compared as they read (lookAlike), not byte
// by byte: "mail ", "m a i l", "MAIL", "ｍａｉｌ" and "mail #2" all pass for
// the agent mail.
func (l *listener) forges(a *agent, name string) bool {
	n := lookAlike(name)
	bracketed := strings.ContainsAny(norm.NFKC.String(name), "()[]{}<>")
	for _, b := range l.agents {
		if b == a {
			continue
		}
		t := lookAlike(b.tag())
		if strings.EqualFold(name, b.tag()) || strings.Contains(name, "("+b.tag()+")") || n == t ||
			strings.HasPrefix(n, t) && strings.Trim(n[len(t):], "0123456789") == "" && t != "" ||
			bracketed && t != "" && strings.Contains(n, t) {
			return true
		}
	}
	return false
}

// lookAlike is name as it reads: compatibility forms folded (full-width
// letters become ASCII), lower case, letters and digits only, and the
// ASCII look-alikes 0/o, 1/l/i and rn/m made one.
func lookAlike(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(norm.NFKC.String(name)) {
		switch {
		case r == '0':
			b.WriteByte('o')
		case r == '1' || r == 'i' || r == '|':
			b.WriteByte('l')
		case r >= 'a' && r <= 'z' || r >= '2' && r <= '9':
			b.WriteRune(r)
		case r > 0x7f && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(b.String(), "rn", "m"), "vv", "w")
}

// plainName reports whether a producer's name may stand alone in a run of
// several agents: printable ASCII words, one space apart, with no brackets
// or '#' (the marks of names told apart). Any other name (letters of other
// scripts, which may look like another agent's, included) is always shown
// with its agent's tag.
func plainName(name string) bool {
	if name == "" || name != strings.TrimSpace(name) || strings.Contains(name, "  ") || strings.ContainsAny(name, "()[]{}<>#") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return false
		}
	}
	return true
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
	if s.l.multi {
		an.Agent = s.l.display(s.a, an.Agent)
	}
	return s.next.Announce(an)
}

func (s agentSink) Diagnostic(d session.Diagnostic) error {
	ds, ok := s.next.(announce.DiagnosticSink)
	if !ok {
		return nil
	}
	if s.l.multi {
		d.Message = s.a.tag() + ": " + d.Message
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
	go l.feed(a)
	return a
}

// addAgent adds an agent whose client start makes, with the configuration
// the flags and spec give it; nobody takes its updates yet.
func (l *listener) addAgent(spec agentSpec, start func(subscriber.Config) *subscriber.Client) *agent {
	a := &agent{n: len(l.agents), label: spec.Label, endpoint: spec.Endpoint, terms: spec.Terms, muted: spec.Muted, state: "connecting"}
	a.name = a.label
	if a.name == "" {
		a.name = shortEndpoint(a.endpoint)
	}
	for i := 2; !l.names.claimTag(a.name, a.n); i++ {
		a.name = fmt.Sprintf("%s #%d", strings.TrimSuffix(a.name, fmt.Sprintf(" #%d", i-1)), i)
	}
	if a.label != "" {
		a.label = a.name // a label another agent has already is told apart
	}
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
	ccfg.PromptNumbers = l.numbers
	ccfg.MaxQueued, ccfg.DedupeWindow = l.queueEach, l.dedupeEach
	if l.multi {
		ccfg.Schemas = l.schemas()
	}
	a.c = start(ccfg)
	l.agents = append(l.agents, a)
	l.live++
	return a
}

// feed hands a's updates to the loop, l.batchMax at a time, until its End.
// The agents' feeds queue on one channel in turn, so each waits for at
// most one batch of every other.
func (l *listener) feed(a *agent) {
	for {
		b, err := a.c.NextBatch(context.Background(), l.batchMax)
		if err != nil {
			return
		}
		select {
		case l.batches <- agentBatch{a, b}:
		case <-l.stopped:
			return
		}
	}
}

// follow keeps a's state and terms words, which the agents command says,
// up to date with update u.
func (a *agent) follow(u subscriber.Update) {
	switch u.Kind {
	case subscriber.KindStatus:
		switch u.Status {
		case subscriber.StatusConnecting:
			a.state = "connecting"
		case subscriber.StatusConnected:
			a.state = "connected"
		case subscriber.StatusReconnecting:
			a.state = "connection lost, reconnecting"
		case subscriber.StatusSubscribed:
			a.state = "subscribed"
			a.termsWords = u.Text
		case subscriber.StatusTerms:
			a.termsWords = u.Text
		case subscriber.StatusRejected:
			a.state = "refused"
		case subscriber.StatusRetry:
			a.state = "waiting to subscribe again"
		}
	case subscriber.KindDelivery:
		if u.Delivery.Kind == session.KindEvent {
			a.events++
			if a.state == "connecting" || a.state == "connection lost, reconnecting" {
				a.state = "connected"
			}
		}
	case subscriber.KindEnd:
		a.state = "ended"
	}
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
