package console

// play.go: a capture played through the subscriber client aaep-listen runs
// live, told by the console's loop (Listener.update) with the console's
// words. What playing tells differently is set by the Config fields the
// player turns on (PlayConfig): statuses word for word, the recorded
// subscriber's replies told its own way, agents named by their labels,
// lines timed by the recorded clock, an agent's End told as it comes.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/replay"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// PlayConfig is what a player needs from the command that runs it.
type PlayConfig struct {
	// Name is the command's, before an output's failure on ErrOut.
	Name   string
	ErrOut io.Writer
	// Verbosity is how much the announcers say: terse, normal or detailed.
	Verbosity string
	// Source names the capture as the clients' endpoint ("file:NAME"):
	// nothing is fetched for it.
	Source string
}

// Player plays a capture through the subscriber client that aaep-listen
// runs live (subscriber.New over a replay.Conn), and tells the client's
// ordered updates through a console (Listener) as aaep-listen does. The
// client's clock is the recorded time. Frames received together
// (replay.BurstGap) are handed to the client as one burst, as a burst of
// history reaches a live client. Only one goroutine may use a Player.
type Player struct {
	cfg   Config
	out   Output
	sinks []announce.Sink // out, then any speech or braille output
	// l is the console telling the clients' updates, new at every reset.
	l   *Listener
	ann *announce.Announcer // for what belongs to no connection
	// source names the capture as the client's endpoint.
	source string
	// tracks are the connections of the capture, each played by its own
	// client, by connection ID ("" for the one of version 1); order is
	// the order they first appeared.
	tracks map[string]*track
	order  []*track
	// pending is the track whose burst waits to be handed over: a record
	// of another connection hands it over first, so everything is told
	// in the order recorded.
	pending *track
	// nameOf names a connection of the capture (label, else endpoint).
	nameOf func(id string) string
	// muted drops what the clients tell and what the player would say,
	// while a seek fast-forwards.
	muted bool
}

// track is one connection of the capture being played: its own client,
// announcer and bursts.
type track struct {
	// name is how its lines name the agent; "" for a capture of one connection.
	name string
	// terms are what the recorded subscriber asked for, from its
	// subscription request; the client holds the producer to them.
	terms session.Terms
	// run is the client playing now; nil before the first frame.
	run *playing
	// burst are the frames received together not yet handed over; burstAt
	// is when the last of them was received.
	burst   []transport.Frame
	burstAt time.Time
}

// playing is one client over one capture connection, an agent of the console.
type playing struct {
	a     *agent
	conn  *replay.Conn
	clock *replay.Clock
	stop  context.CancelFunc
}

// MaxBurst is the most frames handed to the client as one burst: the
// client queues at most 256 received frames, so no live burst is longer.
const MaxBurst = 256

// NewPlayer is a player of cfg telling out and the other sinks.
func NewPlayer(cfg PlayConfig, out Output, sinks ...announce.Sink) *Player {
	p := &Player{out: out, source: cfg.Source}
	if p.source == "" {
		p.source = "file:capture"
	}
	p.cfg = Config{
		Name:     cfg.Name,
		IO:       &term.IO{ErrOut: cfg.ErrOut},
		Now:      time.Now,
		Announce: announce.Config{Verbosity: cfg.Verbosity},
		Client: func(AgentSpec) subscriber.Config {
			return subscriber.Config{
				Identity:      session.Identity{ID: "aaep-replay", Name: "aaep-replay"},
				NoSignerWords: "a replay",
				// Each connection played keeps its own window of events
				// seen, as each recorded subscriber did.
				Dedupe: session.NewDedupe(0),
			}
		},
		Verbatim: true, HideSentReplies: true, NameByLabel: true, UpdateTime: true, PlainEnd: true,
	}
	p.sinks = append([]announce.Sink{out}, sinks...)
	p.Reset()
	return p
}

// AddSinks adds outputs (speech, braille) told as out is, and starts afresh.
func (p *Player) AddSinks(sinks ...announce.Sink) {
	p.sinks = append(p.sinks, sinks...)
	p.Reset()
}

// Diagnose tells d, which belongs to no connection.
func (p *Player) Diagnose(d session.Diagnostic) {
	if !p.muted {
		p.ann.Diagnose(d)
	}
}

// Reset starts afresh, as at the start of the capture: clients still
// playing are closed unheard; the outputs stay.
func (p *Player) Reset() {
	for _, t := range p.order {
		if r := t.run; r != nil {
			r.conn.Close()
			r.stop()
			<-r.a.c.Done()
		}
	}
	p.tracks, p.order, p.pending = map[string]*track{}, nil, nil
	p.l = New(p.cfg, p.out, p.sinks[1:]...)
	p.l.muted = p.muted
	p.ann = announce.New(p.l.announceConfig(), p.sinks...)
}

// Mute drops (true) or tells again (false) what the player would tell.
func (p *Player) Mute(muted bool) { p.muted, p.l.muted = muted, muted }

// track returns the track of the connection id, starting it when it is
// the connection's first record. The one connection of version 1 is told
// as before, unnamed; each of several names its agent on every line.
func (p *Player) track(id string) *track {
	if t := p.tracks[id]; t != nil {
		return t
	}
	t := &track{}
	if id != "" {
		t.name = id
		if p.nameOf != nil {
			t.name = p.nameOf(id)
		}
	}
	p.tracks[id] = t
	p.order = append(p.order, t)
	return t
}

// UseNames names the connections of rd's capture by their labels, else endpoints.
func (p *Player) UseNames(rd *capture.Reader) {
	p.nameOf = rd.ConnName
}

// Play reads and announces every record. The engine's clock is the
// recorded time, so prompts expire as they did in the recording.
func (p *Player) Play(ctx context.Context, rd *capture.Reader, speed float64, idle time.Duration) error {
	var (
		base     time.Time // the recorded time of the capture start
		lastAt   time.Time
		started  bool
		timer    = time.NewTimer(time.Hour)
		messages int
	)
	defer timer.Stop()
	base = replay.Start(rd)
	if p.nameOf == nil {
		p.UseNames(rd)
	}
	p.Say(base, "Replaying a capture; prompts are shown but not answered.")
	p.SayConnections(base, rd.Header())
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.Finish(lastAt, "The capture could not be read further.", nil)
			return err
		}
		at := replay.RecordTime(rec, base, lastAt)
		if started && speed > 0 && !replay.Together(lastAt, at) { // no pause inside a burst
			wait := min(time.Duration(float64(at.Sub(lastAt))/speed), idle)
			p.Settle() // what came before is told before the pause
			p.Flush()
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				p.Finish(lastAt, "Stopped.", nil)
				return nil
			}
		}
		if at.After(lastAt) || !started {
			lastAt = at
		}
		started = true
		p.Record(rec, lastAt)
		messages++
	}
	p.Finish(lastAt, fmt.Sprintf("End of the capture: %d %s replayed.", messages, prose.Plural(messages, "message", "messages")), replay.Problems(rd))
	return nil
}

// SayConnections names the agents of a capture of several connections,
// one line: each line played after begins with one of these names.
func (p *Player) SayConnections(now time.Time, h *capture.Header) {
	if h == nil || len(h.Connections) == 0 {
		return
	}
	names := make([]string, len(h.Connections))
	for i, c := range h.Connections {
		names[i] = p.nameOf(c.ID)
		if c.Label != "" {
			names[i] += " (" + protocol.Name(c.Endpoint) + ")"
		}
	}
	p.Say(now, fmt.Sprintf("The capture holds %d agents, each played by its own client: %s.", len(names), strings.Join(names, ", ")))
}

// Record plays one record at now. Received frames wait to be handed to
// the client with the others of the same instant (Settle hands them over).
func (p *Player) Record(rec capture.Record, now time.Time) {
	t := p.track(rec.Conn)
	if p.pending != nil && p.pending != t {
		p.Settle() // another connection's burst came first
	}
	if !rec.Note && !rec.IsText() && rec.Dir == capture.In {
		if len(t.burst) > 0 && (!replay.Together(t.burstAt, now) || len(t.burst) >= MaxBurst) {
			p.Settle()
		}
		t.burst, t.burstAt = append(t.burst, transport.Frame{Data: rec.Msg, At: now}), now
		p.pending = t
		return
	}
	p.Settle()
	switch {
	case rec.Note:
		return
	case rec.IsText():
		p.diagnoseFor(t, session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf("Line %d of the capture holds a frame that is not JSON.", rec.Line)})
		return
	}
	typ := protocol.PeekType(rec.Msg)
	switch typ {
	case protocol.TypeSubscriptionRequest:
		var m protocol.SubscriptionRequest
		if t.run == nil && json.Unmarshal(rec.Msg, &m) == nil {
			t.terms = TermsOf(m.Capabilities)
		}
	case protocol.TypeSubscriptionRenegotiate:
		var m struct {
			Capabilities protocol.Capabilities `json:"capabilities"`
		}
		if r := t.run; r != nil && json.Unmarshal(rec.Msg, &m) == nil {
			// The producer's answer is read as the answer to this.
			_ = r.a.c.Renegotiate(context.Background(), m.Capabilities) // refused: the answer is then told as it comes
		}
	}
	if r := t.run; r != nil {
		r.clock.Set(now)
		_ = r.a.c.Sync(context.Background()) // ended: its End was told
		if typ == protocol.TypeConfirmationReply || typ == protocol.TypeClarificationReply {
			// Its prompt is answered, as it was live: the agent going on
			// is then not told as the prompt settled elsewhere.
			_, _ = r.a.c.Recorded(context.Background(), rec.Msg) // ended: nothing waits
		}
		p.drain(t)
	}
	p.sayFor(t, now, fmt.Sprintf("The recorded subscriber sent %s.", sentWords(typ, rec.Msg)))
}

// diagnoseFor tells d about t's connection, naming its agent when there
// are several.
func (p *Player) diagnoseFor(t *track, d session.Diagnostic) {
	switch {
	case p.muted:
	case t.run != nil:
		t.run.a.ann.Diagnose(d) // through the agent's sinks, which name it
	case t.name != "":
		d.Message = t.name + ": " + d.Message
		p.Diagnose(d)
	default:
		p.Diagnose(d)
	}
}

// Settle hands the frames waiting to their client as one burst, at their
// recorded time, and tells what the client makes of them.
func (p *Player) Settle() {
	t := p.pending
	if t == nil {
		return
	}
	p.pending = nil
	if len(t.burst) == 0 {
		return
	}
	frames, at := t.burst, t.burstAt
	t.burst = nil
	r := p.running(t, at)
	r.clock.Set(at)
	c, ctx := r.a.c, context.Background()
	// The client is paused while the frames of a burst reach its queue, so
	// it takes them as one; a single frame is a burst of one either way.
	resume, err := func() {}, error(nil)
	if len(frames) > 1 {
		resume, err = c.Pause(ctx)
	}
	if err == nil {
		for _, f := range frames {
			if !r.conn.Hand(f, c.Done()) {
				break
			}
		}
		r.conn.Taken(c.Done())
		resume()
		_ = c.Sync(ctx) // ended: its End is told below
	}
	p.drain(t)
}

// running returns t's client playing, starting one at at when there is
// none (the first frame, or frames after a client ended, as a recorder
// subscribing again): an agent of the console, named as t.
func (p *Player) running(t *track, at time.Time) *playing {
	if t.run != nil && !t.run.a.Ended() {
		return t.run
	}
	clock := &replay.Clock{}
	clock.Set(at)
	ctx, stop := context.WithCancel(context.Background())
	conn := replay.NewConn()
	if t.name != "" {
		p.l.multi = true // lines name their agent
	}
	a := p.l.addAgent(AgentSpec{Label: t.name, Endpoint: p.source, Terms: t.terms}, func(cfg subscriber.Config) *subscriber.Client {
		cfg.Now = clock.Now
		return subscriber.New(ctx, conn, p.source, cfg)
	})
	if t.run != nil {
		a.ann = t.run.a.ann // output held from the client before is told as before
	}
	t.run = &playing{a: a, conn: conn, clock: clock, stop: stop}
	return t.run
}

// drain tells every update t's client has queued, without waiting.
func (p *Player) drain(t *track) {
	if t.run == nil {
		return
	}
	now, cancel := context.WithCancel(context.Background())
	cancel() // queued updates only
	_ = p.hear(now, t.run.a)
}

// hear tells a's updates until its End (nil) or until ctx is done (its
// error, once the updates already queued are told).
func (p *Player) hear(ctx context.Context, a *agent) error {
	for {
		us, err := a.c.NextBatch(ctx, 0)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for i := range us {
			p.l.update(a, &us[i])
		}
	}
}

// Hear tells the updates of c, a client of the player's one connection
// (a live one, to compare with what playing its capture tells), until
// its End (nil) or until ctx is done.
func (p *Player) Hear(ctx context.Context, c *subscriber.Client) error {
	a := p.l.addAgent(AgentSpec{Endpoint: p.source}, func(subscriber.Config) *subscriber.Client { return c })
	return p.hear(ctx, a)
}

// sentWords describes a message the recorded subscriber sent.
func sentWords(typ string, msg []byte) string {
	switch typ {
	case protocol.TypeConfirmationReply:
		var m struct {
			Decision  string `json:"decision"`
			Rationale string `json:"decision_rationale"`
		}
		_ = json.Unmarshal(msg, &m) // an unreadable reply is still named
		words := "a confirmation reply: " + protocol.Line(orDefault(m.Decision, "no decision"))
		if why := protocol.Line(m.Rationale); why != "" {
			words += ", because " + protocol.Theirs(strings.TrimSuffix(why, "."))
		}
		return words
	case protocol.TypeClarificationReply:
		return "an answer to a question"
	case "":
		return "a message with no type"
	}
	return protocol.Sanitize(typ)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Finish ends playing at now: the clients close, saying why (their End),
// after the problems found reading the capture, if any.
func (p *Player) Finish(now time.Time, why string, problems []capture.Diagnostic) {
	p.Settle()
	var live []*track
	for _, t := range p.order {
		if r := t.run; r != nil && !r.a.Ended() {
			r.clock.Set(now)
			_ = r.a.c.Sync(context.Background())
			p.drain(t)
			live = append(live, t)
		}
	}
	for _, d := range problems {
		p.Diagnose(session.Diagnostic{At: now, Code: "capture", Message: d.Message})
	}
	if len(live) == 0 {
		if !p.muted {
			for _, t := range p.order {
				if t.run != nil {
					t.run.a.ann.Flush(now)
				}
			}
		}
		p.Say(now, why)
	}
	for _, t := range live { // each End says why, naming its agent
		r := t.run
		_ = r.a.c.CloseBecause(why)
		_ = p.hear(context.Background(), r.a) // to the End, queued by now
		r.stop()
	}
	p.Flush()
}

// sayFor says s for t's connection, naming its agent when there are several.
func (p *Player) sayFor(t *track, now time.Time, s string) {
	if t.name != "" {
		s = protocol.Name(t.name) + ": " + s
	}
	p.Say(now, s)
}

// Say says a line of the player's own, at the recorded time now.
func (p *Player) Say(now time.Time, s string) {
	if p.muted {
		return
	}
	if err := p.out.Say(now, s); err != nil {
		p.l.sinkFailed(err)
	}
}

// Flush writes out what was told.
func (p *Player) Flush() { p.l.flush() }

// TermsOf are the terms a recorded subscription request asked for.
func TermsOf(c protocol.Capabilities) session.Terms {
	t := session.Terms{
		Rate: c.MaxEventsPerSecond, Verbosity: c.PreferredVerbosity, Languages: c.Languages,
		Coalesce: c.CoalesceBoundaries, CognitiveLoad: c.CognitiveLoad, PaceWPM: c.PaceWPM,
		CanConfirm: c.SupportsConfirmationReply != nil && *c.SupportsConfirmationReply,
		CanClarify: c.SupportsClarificationReply != nil && *c.SupportsClarificationReply,
	}
	if f := c.EventFilters; f != nil {
		t.Include, t.Exclude = f.Include, f.Exclude
	}
	return t
}
