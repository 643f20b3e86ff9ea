package producer

// This file holds the Producer, its options and the run of the scenarios:
// sessions, envelopes, prompts and how they were settled.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/sigrpl"
)

// ErrClosed is returned by Run when Close stopped the run before the
// scenarios ended.
var ErrClosed = errors.New("producer: closed")

// historyLimit is how many events the producer keeps for late and
// reconnecting subscribers.
const historyLimit = 10000

// Options configure a Producer. The zero value plays no scenario.
type Options struct {
	// Scenarios are played one after the other (two at a time with Quirks),
	// each as a session of its own.
	Scenarios []Scenario
	// Speed multiplies every step's after_ms; 0 plays without pauses.
	// Prompts still wait their full time (see PromptTimeout), unless no
	// subscriber can answer them.
	Speed float64
	// Quirks makes the producer behave like producers deployed today: no
	// handshake, bare "data:" lines with heartbeat comments, tool.invoked
	// before its confirmation, empty summary_normal strings on some events,
	// replies answered {"status":"received"} whatever they hold, and old
	// events replayed to every new stream.
	Quirks bool
	// Duplicate is the probability that an event is written twice to a
	// stream.
	Duplicate float64
	// Shuffle, when above 1, is the size of the window in which a stream's
	// non-critical events are written in random order. Critical events are
	// never held back.
	Shuffle int
	// Seed makes Duplicate and Shuffle reproducible.
	Seed uint64
	// EndWhenDone ends every stream once the last scenario has ended, and
	// answers every later stream request 204 No Content (do not reconnect).
	EndWhenDone bool
	// Loop plays the scenarios again and again, each round as new
	// sessions, until Close. It goes without EndWhenDone.
	Loop bool
	// JoinLive starts a new stream (one that resumes from no Last-Event-ID)
	// with what is sent from then on, as a live agent does, and the prompts
	// still waiting for a reply; it is not sent the run so far, so a prompt
	// settled before it came is never asked again. A stream that resumes
	// gets what it missed.
	JoinLive bool
	// OnEnd, if not nil, is called once the scenarios have played to their
	// end (not when Close stops them), on the run's goroutine.
	OnEnd func()
	// Now stamps events; nil means time.Now.
	Now func() time.Time
	// Logf, if not nil, is told about subscriptions, replies and prompts.
	Logf func(format string, args ...any)
	// PromptTimeout, if positive, is how long a prompt waits for its reply,
	// in place of its timeout_seconds (which the event still carries). For
	// tests.
	PromptTimeout time.Duration
	// Heartbeat is the interval of the ": heartbeat" comments of a stream
	// in Quirks mode; zero means 30 seconds. Other streams send none.
	Heartbeat time.Duration
	// PinnedKeys, if not empty, are the RFC 7638 thumbprints of the only
	// reply keys (signed-replies extension) accepted; a subscription
	// offering none of them is rejected.
	PinnedKeys []string
	// RequireSignedReplies refuses unsigned replies. With it, or with
	// PinnedKeys, events are streamed only to subscriptions that offered an
	// accepted key: the deployed layout's GET /events, which has no
	// handshake, is refused.
	RequireSignedReplies bool
	// Token, if not empty, is the bearer token every request must carry
	// (HTTP "Authorization: Bearer <Token>", gRPC "authorization"
	// metadata): event streams, subscriptions, replies and the WebSocket
	// alike; only the manifest is public.
	Token string
	// ManifestKey, if not nil, signs the manifest: it is served as a JWS
	// and sent inline in subscription.accepted (manifest.go).
	ManifestKey *ManifestKey
	// Refuse, if not nil, rejects subscription requests as it says
	// (refuse.go), for tests and demonstrations of rejections.
	Refuse *Refusal
	// ManifestFault spoils the manifest for tests; zero is honest.
	ManifestFault ManifestFault
	// Replay, if not nil, is a recorded session served in place of the
	// scenarios (replay.go); New prepares it.
	Replay *Replay
	// Live, if not nil, is a running agent served in place of the
	// scenarios (live.go).
	Live *Live
	// Break, if not empty, names one requirement of the conformance
	// chapter to violate (breaks.go), for testing conformance suites.
	Break string
	// AllowOrigins are the origins ("http://localhost:3000") whose pages a
	// browser lets read the event streams, subscribe and answer prompts
	// (cors.go). AnyOrigin lets in every page, but its unsigned replies are
	// refused, since any page the user visits could forge them. A page of
	// another origin is refused anything but a GET, which it cannot read.
	AllowOrigins []string
	// KeepAlive is the interval of the ": keep-alive" comments of an SSE
	// stream (outside Quirks mode), so that subscribers that drop a silent
	// stream keep it while prompts wait; zero means 15 seconds.
	KeepAlive time.Duration
	// OnMessage, if not nil, is told every message a subscriber sends
	// after its handshake (replies, renegotiation, close), with the binding
	// it came by: the HTTP path, the WebSocket path, "gRPC", "stdio" or
	// "Unix socket". It may be called from several goroutines at once; msg
	// is as received, unsanitized.
	OnMessage func(via string, msg []byte)
}

// Resolution says how a prompt was settled.
type Resolution int

// Resolutions of a prompt.
const (
	Accepted  Resolution = iota + 1 // a reply accepted the confirmation
	Rejected                        // a reply rejected the confirmation
	Answered                        // a reply answered the clarification
	TimedOut                        // no valid reply in time: the default applied
	Abandoned                       // the producer was closed while the prompt waited
	Defaulted                       // no subscription could answer: the default applied at once
)

func (r Resolution) String() string {
	switch r {
	case Accepted:
		return "accepted"
	case Rejected:
		return "rejected"
	case Answered:
		return "answered"
	case TimedOut:
		return "timed out"
	case Abandoned:
		return "abandoned"
	case Defaulted:
		return "defaulted: no subscriber could answer"
	}
	return fmt.Sprintf("Resolution(%d)", int(r))
}

// Outcome records how one prompt was settled, which picks the steps that
// follow it.
type Outcome struct {
	Scenario   string
	SessionID  string
	Type       string // protocol.TypeAwaitingConfirmation or protocol.TypeAwaitingClarify
	ReplyToken string
	Resolution Resolution
	// Decision is the decision applied to a confirmation, by reply or by
	// default: "accept" or "reject".
	Decision string
	// Answer is the answer applied to a clarification, by reply or by
	// default_response: a choice's value, free text, "true"/"false" or a
	// number as written; "" when none applied.
	Answer string
	// Rationale is the reply's decision_rationale, when it gave one.
	Rationale string
	// SubscriptionID is the subscription that replied, when it said.
	SubscriptionID string
	// At is when the prompt was settled.
	At time.Time
}

// Producer plays scenarios to every stream it serves. It is an http.Handler;
// its methods are safe for concurrent use.
type Producer struct {
	opts    Options
	mux     http.Handler
	langs   []string // languages of the scenarios, for the handshake
	ctx     context.Context
	cancel  context.CancelFunc
	start   sync.Once
	watched sync.Once      // calls Live.Watched at the first stream (startIndex)
	done    chan struct{}  // closed when the run has ended
	conns   sync.WaitGroup // connections being served on a message binding

	mu       sync.Mutex
	hist     eventLog      // the latest events of the run, oldest first; guarded by mu
	changed  chan struct{} // closed and replaced on every change; never nil
	active   int           // scenarios playing
	blocked  int           // of which waiting on a prompt
	finished bool          // the run has ended
	runErr   error
	subs     map[string]*subscription
	prompts  map[string]*prompt // by reply token, settled ones included
	outcomes []Outcome
	settled  chan struct{} // closed and replaced when a prompt is settled; never nil
	streams  uint64        // streams opened so far; seeds each one's chaos
	// anonymous counts the open streams of the deployed layout: they hold
	// no subscription but see every prompt and may answer it.
	anonymous int
}

// record is one published event.
type record struct {
	id       string
	typ      string
	session  string
	critical bool
	token    string // a prompt's reply token
	data     []byte // the event's JSON, one line; never modified
}

// New returns a producer for opts. Nothing plays until Run is called or a
// stream is opened.
func New(opts Options) *Producer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Speed < 0 {
		opts.Speed = 0
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 30 * time.Second
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	if opts.Live != nil {
		opts.JoinLive = true // a live agent's past is not played again (live.go)
	}
	p := &Producer{
		opts:    opts,
		done:    make(chan struct{}),
		changed: make(chan struct{}),
		settled: make(chan struct{}),
		subs:    map[string]*subscription{},
		prompts: map[string]*prompt{},
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if opts.Replay != nil {
		opts.Replay.prepare()
	}
	for _, sc := range opts.Scenarios {
		if !slices.Contains(p.langs, sc.Language) {
			p.langs = append(p.langs, sc.Language)
		}
	}
	p.mux = p.cors(p.authorized(p.routes()))
	return p
}

// Run plays the scenarios, unless a stream has started them already, and
// waits until they end. When ctx ends first, Run closes the producer and
// returns ctx.Err(); when Close does, it returns ErrClosed.
func (p *Producer) Run(ctx context.Context) error {
	p.begin()
	select {
	case <-p.done:
	case <-ctx.Done():
		p.Close()
		return ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runErr
}

// Done is closed when the run has ended: every scenario played, or Close.
func (p *Producer) Done() <-chan struct{} { return p.done }

// Close stops the run, abandoning a waiting prompt, and ends every stream. It
// returns once every WebSocket, Unix socket and stdio connection has ended.
// Call it before shutting the HTTP server down, since open streams never go
// idle. Close waits for the run to stop; it always returns nil.
func (p *Producer) Close() error {
	p.mu.Lock()
	p.cancel() // under mu: serving no connection starts after this
	p.mu.Unlock()
	p.start.Do(func() { // never started: nothing will play
		p.mu.Lock()
		p.finished, p.runErr = true, ErrClosed
		p.broadcastLocked()
		p.mu.Unlock()
		close(p.done)
	})
	<-p.done
	p.conns.Wait() // each one ends within closeWait of the cancel
	return nil
}

// serving counts a connection that starts being served; it is false once the
// producer is closing. A true answer must be followed by p.conns.Done().
func (p *Producer) serving() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return false
	}
	p.conns.Add(1)
	return true
}

// Outcomes lists the prompts settled so far, in the order they were settled.
func (p *Producer) Outcomes() []Outcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.outcomes)
}

// WaitOutcomes waits until at least n prompts have been settled and returns
// the outcomes, as Outcomes does; when ctx ends first, it returns those
// settled so far and ctx's error.
func (p *Producer) WaitOutcomes(ctx context.Context, n int) ([]Outcome, error) {
	for {
		p.mu.Lock()
		outs, settled := slices.Clone(p.outcomes), p.settled
		p.mu.Unlock()
		if len(outs) >= n {
			return outs, nil
		}
		select {
		case <-settled:
		case <-ctx.Done():
			return outs, ctx.Err()
		}
	}
}

// begin starts the run, unless it has started; a replay that each stream
// plays for itself has no run.
func (p *Producer) begin() {
	if p.ownPlaying() {
		return
	}
	p.start.Do(func() { go p.run() })
}

// told reports a message a subscriber sent to Options.OnMessage.
func (p *Producer) told(via string, msg []byte) {
	if p.opts.OnMessage != nil {
		p.opts.OnMessage(via, msg)
	}
}

// run plays every scenario, one at a time (two with Quirks).
func (p *Producer) run() {
	defer func() {
		p.mu.Lock()
		p.finished = true
		closed := p.ctx.Err() != nil
		if closed {
			p.runErr = ErrClosed
		}
		p.broadcastLocked()
		p.mu.Unlock()
		p.opts.Logf("producer: the run has ended")
		if !closed && p.opts.OnEnd != nil {
			p.opts.OnEnd()
		}
		close(p.done)
	}()
	if p.opts.Replay != nil {
		p.runReplay()
		return
	}
	if p.opts.Live != nil {
		p.runLive()
		return
	}
	at := 1
	if p.opts.Quirks {
		at = 2 // interleave two sessions on the one stream
	}
	slots := make(chan struct{}, at)
	var wg sync.WaitGroup
	defer wg.Wait()
	for round := 1; ; round++ {
		if round > 1 {
			p.opts.Logf("producer: the scenarios play again, round %d", round)
		}
		for i := range p.opts.Scenarios {
			select {
			case slots <- struct{}{}:
			case <-p.ctx.Done():
				return
			}
			started := make(chan struct{})
			wg.Go(func() {
				defer func() { <-slots }()
				_ = p.play(p.ctx, &p.opts.Scenarios[i], started) // fails only when closed
			})
			// The next scenario may start once this one has: sessions begin in
			// the order of the scenarios.
			<-started
		}
		if !p.opts.Loop || len(p.opts.Scenarios) == 0 {
			return
		}
	}
}

// session is one scenario being played; only its own goroutine uses it.
type session struct {
	sc        *Scenario
	id        string
	seq       int
	last      time.Time
	positions map[string]int // streamed runes so far, by output_id
	envelope  []byte         // the producer, verbosity and urgency members
	started   chan struct{}  // closed once the first event is out; then nil
}

// play plays one scenario as a new session; it closes started once the
// session's first event is published, or when it returns.
func (p *Producer) play(ctx context.Context, sc *Scenario, started chan struct{}) error {
	s := &session{sc: sc, id: "sess_" + randomHex(16), positions: map[string]int{}, started: started}
	defer func() {
		if s.started != nil {
			close(s.started)
		}
	}()
	var b bytes.Buffer
	b.WriteString(`"producer":{"agent_id":`)
	b.Write(jsonString(sc.Agent.ID))
	if sc.Agent.Name != "" {
		b.WriteString(`,"agent_name":`)
		b.Write(jsonString(sc.Agent.Name))
	}
	if sc.Agent.Version != "" {
		b.WriteString(`,"agent_version":`)
		b.Write(jsonString(sc.Agent.Version))
	}
	b.WriteString(`},"verbosity":"normal","urgency":`)
	s.envelope = b.Bytes()

	p.mu.Lock()
	p.active++
	p.broadcastLocked()
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.active--
		p.broadcastLocked()
		p.mu.Unlock()
	}()
	p.opts.Logf("producer: scenario %s starts as %s", sc.Name, s.id)
	return p.steps(ctx, s, sc.Steps, nil)
}

func (p *Producer) steps(ctx context.Context, s *session, steps []Step, vars *strings.Replacer) error {
	for i := range steps {
		st := &steps[i]
		if err := p.pause(ctx, st.AfterMS); err != nil {
			return err
		}
		var err error
		switch st.Event.Type {
		case protocol.TypeAwaitingConfirmation:
			err = p.confirm(ctx, s, st, vars)
		case protocol.TypeAwaitingClarify:
			err = p.clarify(ctx, s, st, vars)
		default:
			p.emit(s, st.Event, vars, "", time.Time{})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *Producer) pause(ctx context.Context, ms int) error {
	d := time.Duration(float64(ms) * p.opts.Speed * float64(time.Millisecond))
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stamp returns the time for the session's next event: now, to the
// millisecond, but never before the session's previous event.
func (s *session) stamp(now time.Time) time.Time {
	now = now.UTC().Truncate(time.Millisecond)
	if now.Before(s.last) {
		now = s.last
	}
	s.last = now
	return now
}

// emit renders ev with its envelope and publishes it. A non-empty token is
// added as the reply_token. at is the event's time; zero means now.
func (p *Producer) emit(s *session, ev Payload, vars *strings.Replacer, token string, at time.Time) {
	fields := ev.Fields
	if vars != nil || token != "" || p.opts.Quirks || ev.Type == protocol.TypeOutputStreaming {
		fields = slices.Clone(fields)
	}
	if vars != nil {
		for i, f := range fields {
			fields[i].Value = json.RawMessage(vars.Replace(string(f.Value)))
		}
	}
	if ev.Type == protocol.TypeOutputStreaming {
		fields = s.position(ev, fields)
	}
	if token != "" {
		fields = append(fields, Field{"reply_token", jsonString(token)})
	}
	if p.opts.Quirks && quirkEmptySummary(ev) {
		fields = append(fields, Field{"summary_normal", json.RawMessage(`""`)})
	}

	if at.IsZero() {
		at = s.stamp(p.opts.Now())
	}
	id := "evt_" + randomHex(16)
	urgency := urgencyOf(ev.Type)

	var b bytes.Buffer
	b.WriteString(`{"@context":"` + protocol.ContextURL + `","aaep_version":"` + protocol.Version + `","type":`)
	b.Write(jsonString(ev.Type))
	fmt.Fprintf(&b, `,"event_id":"%s","session_id":"%s","sequence_number":%d,"timestamp":"%s",`,
		id, s.id, s.seq, at.Format("2006-01-02T15:04:05.000Z"))
	b.Write(s.envelope)
	fmt.Fprintf(&b, `"%s","localization_hints":{"primary_language":%s,"text_direction":%s}`,
		urgency, jsonString(s.sc.Language), jsonString(s.sc.Direction))
	for _, f := range fields {
		b.WriteByte(',')
		b.Write(jsonString(f.Name))
		b.WriteByte(':')
		b.Write(f.Value)
	}
	b.WriteByte('}')
	s.seq++

	if token != "" {
		p.sentPrompt(token, b.Bytes())
	}
	p.publish(record{id: id, typ: ev.Type, session: s.id, token: token, critical: urgency == protocol.UrgencyCritical, data: b.Bytes()})
	if s.started != nil {
		close(s.started)
		s.started = nil
	}
}

// position adds the position of a streamed chunk that has none, counting the
// characters streamed before it under the same output_id.
func (s *session) position(ev Payload, fields []Field) []Field {
	out, _ := ev.str("output_id")
	var chunk string
	hasPos := false
	for _, f := range fields {
		switch f.Name {
		case "chunk":
			_ = json.Unmarshal(f.Value, &chunk)
		case "position":
			hasPos = true
		}
	}
	if !hasPos {
		fields = append(fields, Field{"position", json.RawMessage(fmt.Sprint(s.positions[out]))})
	}
	s.positions[out] += utf8.RuneCountInString(chunk)
	return fields
}

// quirkEmptySummary reports whether Quirks mode adds an empty summary_normal
// to ev, as deployed producers do where the field may be left out.
func quirkEmptySummary(ev Payload) bool {
	switch ev.Type {
	case protocol.TypeStateChanged, protocol.TypeProgressUpdated, protocol.TypeToolCompleted:
		_, has := ev.Get("summary_normal")
		return !has
	}
	return false
}

func urgencyOf(typ string) protocol.Urgency {
	if protocol.CriticalType(typ) {
		return protocol.UrgencyCritical
	}
	switch typ {
	case protocol.TypeStateChanged, protocol.TypeProgressUpdated:
		return protocol.UrgencyBackground
	}
	return protocol.UrgencyNormal
}

// publish adds recs to the run's history and wakes the streams once.
func (p *Producer) publish(recs ...record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range recs {
		p.hist.add(r)
	}
	p.broadcastLocked()
}

// broadcastLocked wakes every stream waiting for a change. p.mu is held.
func (p *Producer) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// prompt is a confirmation or clarification issued by a scenario.
type prompt struct {
	token    string
	typ      string
	scenario string
	session  string
	expires  time.Time // the event's timestamp plus its timeout_seconds
	allowed  []string  // confirmation: allowed decisions
	kinds    []string  // clarification: accepted response kinds
	choices  []choice  // clarification: offered answers
	settled  chan struct{}
	gone     chan struct{} // closed when no subscriber is left to answer (close.go)
	goneAs   Resolution    // how the default applies once gone is closed; guarded by Producer.mu
	outcome  Outcome       // valid once settled is closed
	label    string        // clarification: how the answer reads
	digest   string        // sigrpl.PromptDigest of the event as sent; guarded by Producer.mu
}

// open registers a prompt for ev, issued at at with token. It reports
// whether the prompt is to be sent: not when no one can answer it, for then
// its default applies at once and the agent goes on as if it had never
// asked (spec §5.3.1.4), which keeps the session's sequence numbers whole.
func (p *Producer) open(s *session, ev Payload, token string, at time.Time) (*prompt, bool) {
	pr := newPrompt(ev, token, s.sc.Name, s.id, at)
	p.mu.Lock()
	p.prompts[token] = pr
	send := true
	switch {
	case !p.answerableLocked(pr.typ):
		pr.noOneLeftLocked(Defaulted)
		send = false
	}
	p.mu.Unlock()
	return pr, send
}

// newPrompt is the prompt ev asks, issued at at with token in session
// sess of scenario.
func newPrompt(ev Payload, token, scenario, sess string, at time.Time) *prompt {
	var secs int
	v, _ := ev.Get("timeout_seconds")
	_ = json.Unmarshal(v, &secs) // checked when the scenario was loaded
	pr := &prompt{
		token: token, typ: ev.Type, scenario: scenario, session: sess,
		expires: at.Add(time.Duration(secs) * time.Second),
		settled: make(chan struct{}), gone: make(chan struct{}),
	}
	if ev.Type == protocol.TypeAwaitingConfirmation {
		pr.allowed, _ = allowedReplies(ev)
		return pr
	}
	pr.choices, _ = choices(ev)
	if v, ok := ev.Get("accepted_response_kinds"); ok {
		_ = json.Unmarshal(v, &pr.kinds)
	}
	if len(pr.kinds) == 0 {
		pr.kinds = []string{"freetext"}
		if len(pr.choices) > 0 {
			pr.kinds = append(pr.kinds, "multiple_choice")
		}
	}
	return pr
}

// sentPrompt notes the exact bytes the prompt with token is sent as, before
// any subscriber can see them: a signed reply must name their digest.
func (p *Producer) sentPrompt(token string, event []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr := p.prompts[token]; pr != nil {
		pr.digest = sigrpl.PromptDigest(event)
	}
}

// settle records o as the prompt's outcome unless it is settled already; it
// reports whether it did.
func (p *Producer) settle(pr *prompt, o Outcome, label string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.outcome.Resolution != 0 {
		return false
	}
	o.Scenario, o.SessionID, o.Type, o.ReplyToken = pr.scenario, pr.session, pr.typ, pr.token
	o.At = p.opts.Now()
	pr.outcome, pr.label = o, label
	p.outcomes = append(p.outcomes, o)
	close(p.settled)
	p.settled = make(chan struct{})
	close(pr.settled)
	p.opts.Logf("producer: %s %s %s (%s%s)", pr.typ, pr.token, o.Resolution, o.Decision, o.Answer)
	return true
}

// wait blocks until pr is settled, its time runs out (def then applies) or
// ctx ends.
func (p *Producer) wait(ctx context.Context, pr *prompt, def Outcome, defLabel string) (Outcome, string, error) {
	p.mu.Lock()
	p.blocked++
	p.broadcastLocked()
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.blocked--
		p.broadcastLocked()
		p.mu.Unlock()
	}()
	d := pr.expires.Sub(p.opts.Now())
	if p.opts.PromptTimeout > 0 {
		d = p.opts.PromptTimeout
	}
	t := time.NewTimer(d)
	defer t.Stop()
	timeout := t.C
	if p.broken(BreakNoTimeout) {
		timeout = nil
	}
	var err error
	select {
	case <-pr.settled:
	case <-timeout:
		def.Resolution = TimedOut
		p.settle(pr, def, defLabel)
	case <-pr.gone: // no one (left) can answer: the default applies now (close.go)
		p.mu.Lock()
		def.Resolution = pr.goneAs
		p.mu.Unlock()
		p.settle(pr, def, defLabel)
	case <-ctx.Done():
		def.Resolution = Abandoned
		p.settle(pr, def, defLabel)
		err = ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return pr.outcome, pr.label, err
}

func (p *Producer) confirm(ctx context.Context, s *session, st *Step, vars *strings.Replacer) error {
	onAccept := st.OnAccept
	var early *Payload // the tool.invoked sent before the confirmation (Quirks)
	if p.opts.Quirks || p.broken(BreakToolFirst) {
		if i := slices.IndexFunc(onAccept, func(x Step) bool { return x.Event.Type == protocol.TypeToolInvoked }); i >= 0 {
			early = &onAccept[i].Event
			p.emit(s, *early, vars, "", time.Time{})
			onAccept = slices.Delete(slices.Clone(onAccept), i, i+1)
		}
	}
	token := "rpl_" + randomHex(16)
	def, _ := st.Event.str("default_decision")
	at := s.stamp(p.opts.Now())
	pr, send := p.open(s, st.Event, token, at)
	if send {
		p.emit(s, st.Event, vars, token, at)
	}
	o, _, err := p.wait(ctx, pr, Outcome{Decision: def}, "")
	if err != nil {
		return err
	}
	if o.Decision == protocol.DecisionAccept || p.ignoresReject(o) {
		return p.steps(ctx, s, onAccept, vars)
	}
	if early != nil {
		// The tool announced early never ran: say so, as deployed producers do.
		done := Payload{Type: protocol.TypeToolCompleted}
		for _, name := range []string{"tool", "tool_call_id"} {
			if v, ok := early.Get(name); ok {
				done.Fields = append(done.Fields, Field{name, v})
			}
		}
		done.Fields = append(done.Fields, Field{"status", json.RawMessage(`"error"`)})
		if !p.opts.Quirks { // BreakToolFirst breaks nothing else
			done.Fields = append(done.Fields, Field{"summary_normal", json.RawMessage(`"The tool announced before the confirmation did not run."`)})
		}
		p.emit(s, done, vars, "", time.Time{})
	}
	return p.steps(ctx, s, st.OnReject, vars)
}

func (p *Producer) clarify(ctx context.Context, s *session, st *Step, vars *strings.Replacer) error {
	token := "rpl_" + randomHex(16)
	at := s.stamp(p.opts.Now())
	pr, send := p.open(s, st.Event, token, at)
	def := Outcome{}
	defLabel := ""
	if d, ok := st.Event.str("default_response"); ok && d != "" {
		def.Answer, defLabel = d, pr.labelOf(d)
	}
	if send {
		p.emit(s, st.Event, vars, token, at)
	}
	o, label, err := p.wait(ctx, pr, def, defLabel)
	if err != nil {
		return err
	}
	switch {
	case (o.Resolution == TimedOut || o.Resolution == Defaulted) && st.OnTimeout != nil:
		return p.steps(ctx, s, st.OnTimeout, answerVars(def.Answer, defLabel))
	case o.Answer != "":
		return p.steps(ctx, s, st.OnAnswer, answerVars(o.Answer, label))
	}
	return nil // timed out without a default: go on with the steps after it
}

// labelOf returns how an answer reads: its choice's label, or itself.
func (pr *prompt) labelOf(value string) string {
	for _, c := range pr.choices {
		if c.Value == value {
			return c.Label
		}
	}
	return value
}

// answerVars replaces {answer} and {answer_value} inside JSON strings.
func answerVars(value, label string) *strings.Replacer {
	esc := func(s string) string {
		q := jsonString(s)
		return string(q[1 : len(q)-1])
	}
	return strings.NewReplacer("{answer}", esc(label), "{answer_value}", esc(value))
}

// randomHex returns n random bytes in hexadecimal.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails
	return hex.EncodeToString(b)
}
