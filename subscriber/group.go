package subscriber

// group.go: several subscriptions supervised as one, as aaep-listen does
// with several agents: one ordered stream of their updates, one prompt
// numbering, answers routed by number to the client that asked.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// GroupConfig configures a Group. The zero value is usable.
type GroupConfig struct {
	// BatchMax is the most updates one member hands the stream at a time
	// (DefaultBatchMax when 0). Members take turns, so a critical update
	// of one waits for at most one batch of each other.
	BatchMax int
	// Expected is how many members the budgets below are shared among;
	// 0 or 1 leaves each client its own defaults (one subscription alone).
	// It is at least the number added; with members that come and go, say
	// how many may be there at once.
	Expected int
	// MaxQueued is how many updates all members' clients together may
	// hold waiting (GroupMaxQueued when 0); each gets at least 256.
	MaxQueued int
	// DedupeWindow is how many recent events all members together
	// remember to drop duplicates (GroupDedupeWindow when 0), in one
	// window they share (session.Dedupe): each member takes of it what its
	// events need, however many members there are. A member's events
	// already announced are still told apart by their sequence numbers
	// once the window has forgotten their IDs, so a history sent again is
	// never announced twice.
	DedupeWindow int
	// KeepEnded is how many ended members are still listed (Members) and
	// can be found by name (KeepEnded when 0); older ended members are
	// forgotten. A prompt number keeps naming its member either way.
	KeepEnded int
	// Now is the clock that says when a prompt was shown (Seen) and when
	// an answer comes (Reply); time.Now when nil.
	Now func() time.Time
	// Settle is how long a prompt must have been shown, and the prompts
	// waiting unchanged, before a bare answer applies to it (Reply):
	// subscriber.Settle when 0, none when negative.
	Settle time.Duration
}

// Defaults of GroupConfig.
const (
	DefaultBatchMax   = 64
	GroupMaxQueued    = 8192
	GroupDedupeWindow = 1 << 20
	DefaultKeepEnded  = 16
)

// maxOwners bounds how many recent prompt numbers a Group traces to the
// member that numbered them.
const maxOwners = 8192

// Group supervises several clients ("members"), each with a label and an
// endpoint. Their updates come out of one stream (Next), a batch of one
// member at a time in turn; their prompts share one numbering, so Confirm
// and Answer reach the member that asked by the number alone. Display
// decides how a member is named in lines, so that no member's producer
// can pass for another member.
//
// A Group's methods may be called from any goroutine.
type Group struct {
	cfg     GroupConfig
	numbers func() int
	turns   turns // the fed members whose updates wait to be taken (groupturns.go)
	stopped chan struct{}
	stop    sync.Once

	mu      sync.Mutex
	members []*Member // live, and the last KeepEnded ended, in the order added
	added   int       // members ever added
	live    int
	owners  map[int]owned // who numbered each of the recent prompts, and when it was shown
	// forgotten: prompt numbers below it are no longer in owners.
	forgotten int
	names     names
	gen       int // counts changes of the members' tags (Display's cache)
	// changed is when the prompts waiting last changed without the user:
	// one offered, withdrawn, expired or resolved by the agent.
	changed time.Time
	schemas *protocol.Schemas
	dedupe  *session.Dedupe // the members' one dedupe window, made with the second member
	blocks  blockPool       // the members' blocks of updates emptied (updateQueue)
}

// Member is one subscription of a Group.
type Member struct {
	// Value is the caller's own, for its data about the member (aaep-listen
	// keeps its announcer there); the Group never reads it. Set it right
	// after Add or Join, on the goroutine that takes the updates.
	Value any

	g        *Group
	n        int
	label    string // the label given, told apart from another's ("mail #2")
	tag      string // label, else the endpoint shortened
	endpoint string
	c        *Client

	// Under g.turns.mu: listed in g.turns' members in turn, and in its
	// alarms.
	inTurn, inAlarms bool

	// Under g.mu:
	ended      bool
	refused    bool
	err        error
	state      string
	termsWords string
	// events is how many events were Seen: counted without g.mu.
	events atomic.Int64
	// steady is whether Seen of an event delivered without a prompt
	// changes nothing but events: the member's state is not one an event
	// changes. Written under g.mu, read without it.
	steady   atomic.Bool
	shown    map[string]string // Display's decisions, for gen
	shownGen int
}

// Batch is updates of one member, in order.
type Batch struct {
	Member  *Member
	Updates []Update
}

// owned is the member that numbered a prompt, and when the prompt was
// Seen offered (zero when it never was).
type owned struct {
	m  *Member
	at time.Time
}

// MemberPrompt is a prompt waiting for an answer, with the member that
// asked.
type MemberPrompt struct {
	*session.Prompt
	Member *Member
}

// EndedError says a prompt number belongs to a member that has ended: it
// can no longer be answered.
type EndedError struct {
	Prompt int
	Member *Member
}

func (e *EndedError) Error() string {
	return fmt.Sprintf("Prompt %d was asked by %s, which has ended: it can no longer be answered.", e.Prompt, e.Member.Tag())
}

// NewGroup is a Group with no members yet.
func NewGroup(cfg GroupConfig) *Group {
	if cfg.BatchMax <= 0 {
		cfg.BatchMax = DefaultBatchMax
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = GroupMaxQueued
	}
	if cfg.DedupeWindow <= 0 {
		cfg.DedupeWindow = GroupDedupeWindow
	}
	if cfg.KeepEnded <= 0 {
		cfg.KeepEnded = DefaultKeepEnded
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Group{cfg: cfg, numbers: session.Numbers(), turns: newTurns(), stopped: make(chan struct{}),
		owners: map[int]owned{}, names: newNames()}
}

// Add subscribes to endpoint with cfg (shared by the group: see Join) and
// starts handing its updates to Next.
func (g *Group) Add(ctx context.Context, label, endpoint string, cfg Config) *Member {
	ep, err := transport.ParseEndpoint(endpoint)
	m := g.join(label, endpoint, endpointName(ep), cfg, func(cfg Config) *Client { return start(ctx, endpoint, ep, err, cfg) })
	g.Feed(m)
	return m
}

// Join adds a member whose client start makes, with cfg as the group
// shares it: one prompt numbering, the budgets of GroupConfig shared out,
// compiled schemas shared. Nobody takes its updates until Feed; a caller
// taking them itself (Client().NextBatch) tells each to Seen.
func (g *Group) Join(label, endpoint string, cfg Config, start func(Config) *Client) *Member {
	return g.join(label, endpoint, EndpointName(endpoint), cfg, start)
}

// join is Join, the endpoint named already (EndpointName).
func (g *Group) join(label, endpoint, name string, cfg Config, start func(Config) *Client) *Member {
	g.mu.Lock()
	m := &Member{g: g, n: g.added, label: label, endpoint: endpoint, state: "connecting"}
	g.added++
	g.claimTag(m, name)
	cfg.PromptNumbers = g.numbers
	cfg.blocks = &g.blocks
	if n := max(g.cfg.Expected, g.live+1); n > 1 {
		cfg.MaxQueued = max(256, g.cfg.MaxQueued/n)
		if cfg.Dedupe == nil {
			if g.dedupe == nil {
				g.dedupe = session.NewDedupe(g.cfg.DedupeWindow)
			}
			cfg.Dedupe = g.dedupe
		}
		if cfg.Schemas == nil {
			if g.schemas == nil {
				g.schemas, _ = protocol.NewSchemas() // nil when they do not compile: each client says why
			}
			cfg.Schemas = g.schemas
		}
	}
	g.mu.Unlock()
	m.c = start(cfg) // before m is listed: every method may read m.c
	g.mu.Lock()
	g.members = append(g.members, m)
	g.live++
	g.gen++ // Display decided meanwhile without m: decide again
	g.mu.Unlock()
	return m
}

// Feed starts handing m's updates to Next (and Take), BatchMax at a time,
// until its End. No goroutine of its own carries them: m's client lists m
// when it queues an update, and whoever takes the stream takes them from
// the client (groupturns.go).
func (g *Group) Feed(m *Member) { m.c.feed(func(critical bool) { g.turns.list(m, critical) }) }

// Next is the next batch of one member's updates, in the order they
// happened for it: a member's updates up to a critical one first, else the
// next member's in turn. Each update is Seen before it is returned.
func (g *Group) Next(ctx context.Context) (Batch, error) {
	for {
		if b, ok := g.take(alarmsFirst); ok {
			for i := range b.Updates {
				g.Seen(b.Member, &b.Updates[i])
			}
			return b, nil
		}
		select {
		case <-g.turns.ready:
		case <-ctx.Done():
			return Batch{}, ctx.Err()
		case <-g.stopped:
			return Batch{}, ErrClosed
		}
	}
}

// Done gives back the array of b, taken from Next, Take or TakeCritical
// and told, once: the caller keeps no part of b.Updates (it may have
// copied updates out of it). The group's members queue their next updates
// in it, so a batch costs no allocation and, taken whole, no copy.
func (g *Group) Done(b Batch) {
	if b.Member != nil {
		b.Member.c.giveBack(b.Updates)
	}
}

// Ready holds a token while a batch may wait to be taken (Take), for a
// caller selecting on it beside other channels. Each batch taken with
// Take or TakeCritical must be told to Seen, update by update.
func (g *Group) Ready() <-chan struct{} { return g.turns.ready }

// TakeCritical is the next batch that ends in a critical update, without
// waiting and without Seen: a member's updates up to its last critical one,
// the member with a critical update queued first taken first; false when
// no critical update waits. A caller taking these first takes a turn with
// Take now and then, or a member sending only critical updates would keep
// the others waiting.
func (g *Group) TakeCritical() (Batch, bool) { return g.take(alarmsOnly) }

// Take is the next batch of the member in turn (members take turns in the
// order their updates came, BatchMax at a time), without waiting and
// without Seen; false when none waits.
func (g *Group) Take() (Batch, bool) { return g.take(inTurn) }

// Stop ends the stream: Next returns ErrClosed. It closes no client
// (Close does).
func (g *Group) Stop() { g.stop.Do(func() { close(g.stopped) }) }

// Close closes every member's subscription; their Ends still come in the
// stream.
func (g *Group) Close() {
	for _, m := range g.Members() {
		m.c.Close()
	}
}

// Seen records that update u of member m was taken: the member's state,
// terms words and events, the prompt it numbered, its End. An ended member
// past the last KeepEnded ended is forgotten. u is neither kept nor changed:
// a pointer, as a flood's updates are seen by the hundred thousand and an
// Update is some three hundred bytes to copy.
func (g *Group) Seen(m *Member, u *Update) {
	if u.Kind == KindDelivery && u.Delivery.Kind == session.KindEvent && u.Delivery.Prompt == nil && m.steady.Load() {
		m.events.Add(1) // a flood's every update: no lock of the group's
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen(m, u)
	m.steady.Store(m.state != "connecting" && m.state != "connection lost, reconnecting")
}

// seen is Seen under g.mu.
func (g *Group) seen(m *Member, u *Update) {
	switch u.Kind {
	case KindStatus:
		switch u.Status {
		case StatusConnecting:
			m.state = "connecting"
		case StatusConnected:
			m.state = "connected"
		case StatusReconnecting:
			m.state = "connection lost, reconnecting"
		case StatusSubscribed:
			m.state = "subscribed"
			m.termsWords = u.Text
		case StatusTerms:
			m.termsWords = u.Text
		case StatusRejected:
			m.state = "refused"
		case StatusRetry:
			m.state = "waiting to subscribe again"
		}
	case KindDelivery:
		if p := u.Delivery.Prompt; p != nil && p.Number > 0 {
			o, ok := g.owners[p.Number]
			if changesPending(u.Delivery) {
				g.changed = g.cfg.Now()
				if offers(u.Delivery) && o.at.IsZero() {
					o.at = g.changed
				}
			}
			if ok {
				g.owners[p.Number] = o
			} else if p.Number >= g.forgotten {
				g.owners[p.Number] = owned{m, o.at}
				// Forget every number maxOwners below, numbered or
				// skipped: the table never holds more than maxOwners.
				for ; g.forgotten <= p.Number-maxOwners; g.forgotten++ {
					delete(g.owners, g.forgotten)
				}
			}
		}
		if u.Delivery.Kind == session.KindEvent {
			m.events.Add(1)
			if m.state == "connecting" || m.state == "connection lost, reconnecting" {
				m.state = "connected"
			}
		}
	case KindEnd:
		m.state = "ended"
		if !m.ended {
			m.ended = true
			m.refused, m.err = failure(u.Err)
			g.live--
			g.forgetEnded()
		}
	}
}

// forgetEnded forgets the oldest ended members past the last KeepEnded:
// their names are free again, and only a prompt number they gave still
// leads to them.
func (g *Group) forgetEnded() {
	ended := 0
	for _, m := range g.members {
		if m.ended {
			ended++
		}
	}
	for i := 0; ended > g.cfg.KeepEnded; {
		if m := g.members[i]; m.ended {
			g.names.release(m)
			g.members = slices.Delete(g.members, i, i+1)
			g.gen++
			ended--
			continue
		}
		i++
	}
}

// failure is why an End's err ended a member: refused (never accepted: its
// subscription or its manifest refused), or err when it failed; neither
// when it ended normally, or was closed after a renegotiation refused.
func failure(err error) (refused bool, failed error) {
	var rej *RejectedError
	var man *ManifestRefusedError
	switch {
	case errors.As(err, &rej) && rej.Renegotiation:
		return false, nil
	case errors.As(err, &rej) || errors.As(err, &man):
		return true, nil
	}
	return false, err
}

// Members lists the live members and the last ended ones, in the order
// they were added.
func (g *Group) Members() []*Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.members)
}

// Live is how many members have not ended.
func (g *Group) Live() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.live
}

// Pending lists every live member's prompts waiting for an answer, by
// number.
func (g *Group) Pending() []MemberPrompt {
	var ps []MemberPrompt
	for _, m := range g.Members() {
		if m.Ended() {
			continue
		}
		for _, p := range m.c.Pending() {
			ps = append(ps, MemberPrompt{p, m})
		}
	}
	slices.SortFunc(ps, func(x, y MemberPrompt) int { return x.Number - y.Number })
	return ps
}

// Owner is the member that numbered prompt n, when n is recent enough to
// be remembered; nil when none did.
func (g *Group) Owner(n int) *Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.owners[n].m
}

// changesPending reports whether d changes the prompts waiting without
// the user: a prompt offered, withdrawn, expired, resolved or left. The
// user's own answer (KindReplySent) does not.
func changesPending(d session.Delivery) bool {
	switch d.Kind {
	case session.KindEvent:
		return offers(d)
	case session.KindPromptCancelled, session.KindPromptExpired, session.KindPromptResolved, session.KindPromptLeft:
		return true
	}
	return false
}

// ErrNoSuchPrompt: no member numbered the prompt (or so long ago that the
// group forgot).
var ErrNoSuchPrompt = errors.New("subscriber: no member asked that prompt")

// route is the live client that numbered prompt n, or the error saying why
// there is none. A prompt offered by a member's client whose update was not
// Seen yet (it waits in the stream) is found among the members' pending
// prompts: numbers are unique across the group.
func (g *Group) route(n int) (*Member, error) {
	m := g.Owner(n)
	if m == nil {
		for _, p := range g.Pending() {
			if p.Number == n {
				m = p.Member
			}
		}
	}
	switch {
	case m == nil:
		return nil, ErrNoSuchPrompt
	case m.Ended():
		return m, &EndedError{Prompt: n, Member: m}
	}
	return m, nil
}

// Confirm answers confirmation prompt n through the member that asked, and
// no other (Client.Confirm). A number of a member that has ended returns an
// *EndedError.
func (g *Group) Confirm(ctx context.Context, n int, decision string, opts ...ConfirmOption) error {
	var o confirmOptions
	for _, f := range opts {
		f(&o)
	}
	return g.Reply(ctx, Answer{To: Shown{Number: n, Kind: session.AsksConfirmation},
		Decision: decision, Rationale: o.rationale, Always: o.always})
}

// Answer answers clarification prompt n through the member that asked
// (Client.Answer); an ended member's number returns an *EndedError.
func (g *Group) Answer(ctx context.Context, n int, text string) error {
	return g.Reply(ctx, Answer{To: Shown{Number: n, Kind: session.AsksQuestion}, Text: text})
}

// Reply sends a through the member that numbered its prompt, and no other
// (Client.Reply). A bare answer also needs the prompt Seen, Settle ago or
// more, and the prompts waiting across the group unchanged as long: else a
// *PromptError with reason ErrTooSoon, and nothing is sent.
func (g *Group) Reply(ctx context.Context, a Answer) error {
	n := a.To.Number
	m, err := g.route(n)
	if err != nil {
		return err
	}
	if a.Bare {
		g.mu.Lock()
		o := g.owners[n]
		a.changed, a.settle = g.changed, g.cfg.Settle
		g.mu.Unlock()
		if o.at.IsZero() {
			return &PromptError{Prompt: n, Reason: ErrTooSoon, Words: fmt.Sprintf(
				"Prompt %d has not been shown yet; nothing was sent.", n)}
		}
		a.To.At = later(a.To.At, o.at)
	}
	return m.c.Reply(ctx, a)
}

// WhyNot says why prompt n cannot be answered now: nil when it can or no
// member numbered it, an *EndedError when its member has ended, else the
// member's Client.WhyNot.
func (g *Group) WhyNot(ctx context.Context, n int) error {
	m, err := g.route(n)
	switch {
	case errors.Is(err, ErrNoSuchPrompt):
		return nil
	case err != nil:
		return err
	}
	if err := m.c.WhyNot(ctx, n); errors.Is(err, ErrClosed) {
		return &EndedError{Prompt: n, Member: m}
	} else {
		return err
	}
}

// Client is the member's client.
func (m *Member) Client() *Client { return m.c }

// Tag names the member in lines of the caller's own and in commands: its
// label (told apart from another member's as "mail #2"), else its endpoint
// shortened to host:port. It is the member's alone.
func (m *Member) Tag() string { return m.tag }

// Label is the label given, told apart as Tag is; "" when none was given.
func (m *Member) Label() string { return m.label }

// Endpoint is the endpoint subscribed to, as given.
func (m *Member) Endpoint() string { return m.endpoint }

// Ended reports whether the member's End was Seen.
func (m *Member) Ended() bool {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.ended
}

// Refused reports whether the member ended refused, never accepted: its
// subscription was rejected or its manifest did not verify.
func (m *Member) Refused() bool {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.refused
}

// Err is why the member failed (it could not be reached, or the connection
// broke for good): the End's error; nil when it ended normally, was
// refused (Refused), or was closed after a renegotiation was refused.
func (m *Member) Err() error {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.err
}

// State is the member's connection state in words: connecting, connected,
// connection lost, reconnecting, subscribed, refused, waiting to subscribe
// again, or ended.
func (m *Member) State() string {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.state
}

// TermsWords is the latest status line about the member's terms; "" before
// any.
func (m *Member) TermsWords() string {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	return m.termsWords
}

// Events is how many events of the member were Seen.
func (m *Member) Events() int { return int(m.events.Load()) }

// Added is how many members were ever added, ended and forgotten ones
// included.
func (g *Group) Added() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.added
}
