// play.go: aaep-replay play: a capture through the listener's engine and announcer.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/replay"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

const playUsage = `Usage: aaep-replay play [--speed X] [--idle-limit D] [--json | --tui] [--verbosity V]
                        [--no-time] [--config FILE] [--speech S] [--braille B]
                        [--interactive] [--paused] FILE

Announces a capture as aaep-listen would have announced it live: the same
subscriber client (subscription, terms, duplicates, order, lifecycle,
prompts) and the same words, one plain line per announcement (--json: one
JSON record each; --tui: the debug view of aaep-listen). The terms the
recorded producer honoured are enforced as they were live; frames received
together are one burst, so a prompt settled later in the burst is told as
settled, not offered. --speech and --braille add the same speech and
braille outputs as aaep-listen. Prompts are shown but never answered; what
the recorded subscriber sent is read out as such.

Pacing follows the recorded receive times (or, for plain JSON lines, the
events' timestamps): --speed 1 is real time, 2 twice as fast, 0.5 half as
fast, 0 as fast as possible. No pause is longer than --idle-limit.
Lines start with the recorded time (UTC), unless --no-time is given or the
settings file says "timestamps": false, as for aaep-listen.

When standard input is a terminal (or with --interactive, --paused or
--tui), playing is steered by typed commands, one per line (in the TUI,
through its command key, :):
  pause, resume, step         stop, go on, play one message
  seek 1m30s, seek -10s       go to a time, or move from here
  next critical, previous critical, next mark, previous mark, mark
  speed 2, faster, slower     change the speed while playing
  where, help, quit
In the TUI, keys do the same: P pause or resume, . step, ] and [ critical
events, } and { marks, M mark, + and - 10 seconds, > and < speed, W where.

Flags:
`

// output is what both line mode and --json offer (as in aaep-listen).
type output interface {
	announce.Sink
	announce.DiagnosticSink
	Say(now time.Time, text string) error
	Flush() error
}

// player plays a capture through the subscriber client that aaep-listen
// runs live (subscriber.New over a replay.Conn), and announces the client's
// ordered updates with aaep-listen's words. The client's clock is the
// recorded time. Frames received together (replay.BurstGap) are handed to the
// client as one burst, as a burst of history reaches a live client.
type player struct {
	out    output
	sinks  []announce.Sink // out, then any speech or braille output
	annCfg announce.Config
	ann    *announce.Announcer // for what belongs to no connection
	errs   io.Writer
	// source names the capture as the client's endpoint (a file: nothing
	// is fetched for it).
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
	// muted drops what the client tells and what the player would say,
	// while a seek fast-forwards.
	muted bool
	// numbers numbers the prompts of every agent of a capture of
	// several, so that no two agents' prompts share a number.
	numbers func() int
}

// track is one connection of the capture being played: its own client,
// announcer and bursts.
type track struct {
	// name is how its lines name the agent; "" for a capture of one connection.
	name string
	ann  *announce.Announcer
	// terms are what the recorded subscriber asked for, from its
	// subscription request; the client holds the producer to them.
	terms session.Terms
	// run is the client playing now; nil before the first frame, and
	// after the client ended.
	run *playing
	// burst are the frames received together not yet handed over; burstAt
	// is when the last of them was received.
	burst   []transport.Frame
	burstAt time.Time
}

// playing is one client over one capture connection.
type playing struct {
	c     *subscriber.Client
	conn  *replay.Conn
	clock *replay.Clock
	stop  context.CancelFunc
	ended bool // the client's End was told
}

// maxBurst is the most frames handed to the client as one burst: the
// client queues at most 256 received frames, so no live burst is longer.
const maxBurst = 256

func (p *player) Diagnose(d session.Diagnostic) {
	if !p.muted {
		p.ann.Diagnose(d)
	}
}

// reset starts afresh, as at the start of the capture: clients still
// playing are closed unheard; the outputs stay.
func (p *player) reset() {
	for _, t := range p.order {
		if r := t.run; r != nil {
			r.conn.Close()
			r.stop()
			<-r.c.Done()
		}
	}
	p.tracks, p.order, p.pending = map[string]*track{}, nil, nil
	p.ann = announce.New(p.annCfg, p.sinks...)
}

// track returns the track of the connection id, starting it when it is
// the connection's first record. The one connection of version 1 is told
// as before, unnamed; each of several names its agent on every line.
func (p *player) track(id string) *track {
	if t := p.tracks[id]; t != nil {
		return t
	}
	t := &track{ann: p.ann}
	if id != "" {
		t.name = id
		if p.nameOf != nil {
			t.name = p.nameOf(id)
		}
		sinks := make([]announce.Sink, len(p.sinks))
		for i, s := range p.sinks {
			sinks[i] = agentSink{s, t.name}
		}
		t.ann = announce.New(p.annCfg, sinks...)
	}
	p.tracks[id] = t
	p.order = append(p.order, t)
	return t
}

// useNames names the connections of rd's capture by their labels, else endpoints.
func (p *player) useNames(rd *capture.Reader) {
	p.nameOf = rd.ConnName
}

// agentSink names the agent of a connection on everything told through
// it: its label (or endpoint) takes the place of the agent's own name,
// which two instances of one producer share.
type agentSink struct {
	announce.Sink
	name string
}

func (s agentSink) Announce(a announce.Announcement) error {
	a.Agent = s.name
	return s.Sink.Announce(a)
}

func (s agentSink) Diagnostic(d session.Diagnostic) error {
	ds, ok := s.Sink.(announce.DiagnosticSink)
	if !ok {
		return nil
	}
	d.Message = s.name + ": " + d.Message
	return ds.Diagnostic(d)
}

func runPlay(ctx context.Context, args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("play", flag.ContinueOnError)
	speed := fs.Float64("speed", 1, "pace: 1 is as recorded, 2 twice as fast, 0 as fast as possible")
	idle := fs.Duration("idle-limit", 3*time.Second, "longest pause between two messages, whatever was recorded")
	asJSON := fs.Bool("json", false, "write one JSON record per announcement and diagnostic instead of lines")
	verbosity := fs.String("verbosity", "normal", "how much to say: terse, normal or detailed")
	interactive := fs.Bool("interactive", false, "read commands (pause, step, seek …) from standard input even when it is not a terminal")
	paused := fs.Bool("paused", false, "start paused, waiting for a command (implies --interactive)")
	useTUI := fs.Bool("tui", false, "play in the debug view of aaep-listen (needs a terminal)")
	times := addTimeFlags(fs)
	so := outputs.Options{ClientName: "user:aaep-replay:main", Getenv: os.Getenv}
	outputs.AddFlags(fs, &so)
	files, err := parse(fs, args, playUsage, tio.Out)
	if err != nil {
		return codeOf(err), err
	}
	if *speed < 0 {
		return exitUnreadable, cliflag.Usagef("--speed must not be negative")
	}
	if err := checkVerbosity(verbosity); err != nil {
		return exitUnreadable, err
	}
	if err := so.Check(); err != nil {
		return exitUnreadable, cliflag.Usagef("%v", err)
	}
	noTime, err := times.off(os.Getenv)
	if err != nil {
		return exitUnreadable, cliflag.Usagef("%v", err)
	}
	if *useTUI && *asJSON {
		return exitUnreadable, cliflag.Usagef("--tui and --json cannot be combined")
	}
	if *useTUI && (!tio.InTTY || !tio.OutTTY) {
		return exitUnreadable, cliflag.Usagef("--tui needs a terminal on standard input and output; leave it out for plain lines")
	}
	steer := *useTUI || *interactive || *paused || tio.InTTY
	name, path := "", ""
	if len(files) == 1 {
		name, path = files[0], files[0]
	}
	if steer && path == "-" {
		// Steered playing reads the capture again for each jump back:
		// standard input is kept in a file as it came (compressed or not).
		if path, err = spool(os.Stdin); err != nil {
			return exitUnreadable, err
		}
		defer os.Remove(path)
		files = []string{path}
	}
	rd, err := openOne(files, "play")
	if err != nil {
		return exitUnreadable, err
	}
	defer rd.Close()
	p := newPlayer(tio.Out, tio.ErrOut, *asJSON, *verbosity, noTime)
	p.source = "file:" + name
	p.useNames(rd)
	var cmds <-chan string
	if *useTUI {
		prog := startPlayTUI(tio, name)
		defer prog.Close()
		p.out, cmds = prog, playCommands(prog.Actions())
		p.sinks = []announce.Sink{prog}
	}
	outs := outputs.Open(ctx, so, func(s string) { p.say(time.Now(), s); p.flush() })
	defer outs.Close()
	p.sinks = append(p.sinks, outs.List...)
	p.reset()
	if !*useTUI && (*interactive || *paused || tio.InTTY) {
		cmds = replay.ReadCommands(tio.In)
	}
	if cmds == nil {
		if err := p.play(ctx, rd, *speed, *idle); err != nil {
			return exitUnreadable, err
		}
		return exitOK, nil
	}
	o := replay.Options{Speed: *speed, Idle: *idle, Paused: *paused, Commands: cmds, Stay: *useTUI || tio.InTTY}
	if *useTUI {
		o.KeysHelp = playKeysHelp
	}
	st, err := replay.Load(steering{p}, rd, func() (*capture.Reader, error) { return capture.Open(path) }, o)
	if err != nil {
		return exitUnreadable, err
	}
	st.Run(ctx)
	return exitOK, nil
}

// spool copies src into a new private temporary file and returns its path.
func spool(src io.Reader) (string, error) {
	f, err := os.CreateTemp("", "aaep-replay-*.aaep")
	if err != nil {
		return "", fmt.Errorf("keep standard input to play it steered: %w", err)
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("keep standard input to play it steered: %w", err)
	}
	return f.Name(), nil
}

// newPlayer returns a player announcing to w in line mode (without the
// time at the start of each line when noTime) or, with asJSON, as JSON
// records; problems of the output go to errs.
func newPlayer(w, errs io.Writer, asJSON bool, verbosity string, noTime bool) *player {
	p := &player{errs: errs, numbers: session.Numbers()}
	if asJSON {
		p.out = line.NewJSON(w)
	} else {
		p.out = line.NewWriter(w, errs, line.WriterOptions{Location: time.UTC, NoTime: noTime})
	}
	p.annCfg = announce.Config{Verbosity: verbosity, OnError: p.sinkFailed}
	p.source = "file:capture" // a file: nothing is fetched for it
	p.sinks = []announce.Sink{p.out}
	p.reset()
	return p
}

// play reads and announces every record. The engine's clock is the
// recorded time, so prompts expire as they did in the recording.
func (p *player) play(ctx context.Context, rd *capture.Reader, speed float64, idle time.Duration) error {
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
		p.useNames(rd)
	}
	p.say(base, "Replaying a capture; prompts are shown but not answered.")
	p.sayConnections(base, rd.Header())
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.finish(lastAt, "The capture could not be read further.", nil)
			return err
		}
		at := replay.RecordTime(rec, base, lastAt)
		if started && speed > 0 && !replay.Together(lastAt, at) { // no pause inside a burst
			wait := min(time.Duration(float64(at.Sub(lastAt))/speed), idle)
			p.settle() // what came before is told before the pause
			p.flush()
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				p.finish(lastAt, "Stopped.", nil)
				return nil
			}
		}
		if at.After(lastAt) || !started {
			lastAt = at
		}
		started = true
		p.record(rec, lastAt)
		messages++
	}
	p.finish(lastAt, fmt.Sprintf("End of the capture: %d %s replayed.", messages, prose.Plural(messages, "message", "messages")), replay.Problems(rd))
	return nil
}

// sayConnections names the agents of a capture of several connections,
// one line: each line played after begins with one of these names.
func (p *player) sayConnections(now time.Time, h *capture.Header) {
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
	p.say(now, fmt.Sprintf("The capture holds %d agents, each played by its own client: %s.", len(names), strings.Join(names, ", ")))
}

// record plays one record at now. Received frames wait to be handed to
// the client with the others of the same instant (settle hands them over).
func (p *player) record(rec capture.Record, now time.Time) {
	t := p.track(rec.Conn)
	if p.pending != nil && p.pending != t {
		p.settle() // another connection's burst came first
	}
	if !rec.Note && !rec.IsText() && rec.Dir == capture.In {
		if len(t.burst) > 0 && (!replay.Together(t.burstAt, now) || len(t.burst) >= maxBurst) {
			p.settle()
		}
		t.burst, t.burstAt = append(t.burst, transport.Frame{Data: rec.Msg, At: now}), now
		p.pending = t
		return
	}
	p.settle()
	switch {
	case rec.Note:
		return
	case rec.IsText():
		if !p.muted {
			t.ann.Diagnose(session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf("Line %d of the capture holds a frame that is not JSON.", rec.Line)})
		}
		return
	}
	typ := protocol.PeekType(rec.Msg)
	switch typ {
	case protocol.TypeSubscriptionRequest:
		var m protocol.SubscriptionRequest
		if t.run == nil && jsonUnmarshal(rec.Msg, &m) == nil {
			t.terms = termsOf(m.Capabilities)
		}
	case protocol.TypeSubscriptionRenegotiate:
		var m struct {
			Capabilities protocol.Capabilities `json:"capabilities"`
		}
		if r := t.run; r != nil && jsonUnmarshal(rec.Msg, &m) == nil {
			// The producer's answer is read as the answer to this.
			_ = r.c.Renegotiate(context.Background(), m.Capabilities) // refused: the answer is then told as it comes
		}
	}
	if r := t.run; r != nil {
		r.clock.Set(now)
		_ = r.c.Sync(context.Background()) // ended: its End was told
		if typ == protocol.TypeConfirmationReply || typ == protocol.TypeClarificationReply {
			// Its prompt is answered, as it was live: the agent going on
			// is then not told as the prompt settled elsewhere.
			_, _ = r.c.Recorded(context.Background(), rec.Msg) // ended: nothing waits
		}
		p.drain(t)
	}
	p.sayFor(t, now, fmt.Sprintf("The recorded subscriber sent %s.", sentWords(typ, rec.Msg)))
}

// settle hands the frames waiting to their client as one burst, at their
// recorded time, and tells what the client makes of them.
func (p *player) settle() {
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
	ctx := context.Background()
	// The client is paused while the frames of a burst reach its queue, so
	// it takes them as one; a single frame is a burst of one either way.
	resume, err := func() {}, error(nil)
	if len(frames) > 1 {
		resume, err = r.c.Pause(ctx)
	}
	if err == nil {
		for _, f := range frames {
			if !r.conn.Hand(f, r.c.Done()) {
				break
			}
		}
		r.conn.Taken(r.c.Done())
		resume()
		_ = r.c.Sync(ctx) // ended: its End is told below
	}
	p.drain(t)
}

// running returns t's client playing, starting one at at when there is
// none (the first frame, or frames after a client ended, as a recorder
// subscribing again).
func (p *player) running(t *track, at time.Time) *playing {
	if t.run != nil && !t.run.ended {
		return t.run
	}
	clock := &replay.Clock{}
	clock.Set(at)
	ctx, stop := context.WithCancel(context.Background())
	conn := replay.NewConn()
	cfg := subscriber.Config{
		Identity:      session.Identity{ID: "aaep-replay", Name: "aaep-replay"},
		Terms:         t.terms,
		Now:           clock.Now,
		NoSignerWords: "a replay",
	}
	if t.name != "" { // one of several agents: numbers unique across them
		cfg.PromptNumbers = p.numbers
	}
	c := subscriber.New(ctx, conn, p.source, cfg)
	t.run = &playing{c: c, conn: conn, clock: clock, stop: stop}
	return t.run
}

// drain tells every update t's client has queued, without waiting.
func (p *player) drain(t *track) {
	if t.run == nil {
		return
	}
	now, cancel := context.WithCancel(context.Background())
	cancel() // queued updates only
	_ = p.hear(now, t, t.run.c)
}

// hear tells c's updates until its End (nil) or until ctx is done (its
// error, once the updates already queued are told).
func (p *player) hear(ctx context.Context, t *track, c *subscriber.Client) error {
	for {
		us, err := c.NextBatch(ctx, 0)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, u := range us {
			p.update(t, u)
		}
	}
}

// update tells one update of t's client, as aaep-listen does.
func (p *player) update(t *track, u subscriber.Update) {
	if p.muted {
		if u.Kind == subscriber.KindEnd && t.run != nil {
			t.run.ended = true
		}
		return
	}
	switch u.Kind {
	case subscriber.KindDelivery:
		if u.Delivery.Kind == session.KindReplySent {
			return // a recorded reply (Recorded): record says it, as the recorded subscriber's
		}
		t.ann.Deliver(u.Delivery)
	case subscriber.KindDiagnostic:
		t.ann.Diagnose(u.Diagnostic)
	case subscriber.KindStatus, subscriber.KindReply:
		p.sayFor(t, u.At, u.Text)
	case subscriber.KindBreak:
		t.ann.Flush(u.At)
	case subscriber.KindEnd:
		if t.run != nil {
			t.run.ended = true
		}
		p.sayFor(t, u.At, u.Text)
	}
}

// sentWords describes a message the recorded subscriber sent.
func sentWords(typ string, msg []byte) string {
	switch typ {
	case protocol.TypeConfirmationReply:
		var m struct {
			Decision  string `json:"decision"`
			Rationale string `json:"decision_rationale"`
		}
		_ = jsonUnmarshal(msg, &m) // an unreadable reply is still named
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

// finish ends playing at now: the client closes, saying why (its End), after
// the problems found reading the capture, if any.
func (p *player) finish(now time.Time, why string, problems []capture.Diagnostic) {
	p.settle()
	var live []*track
	for _, t := range p.order {
		if r := t.run; r != nil && !r.ended {
			r.clock.Set(now)
			_ = r.c.Sync(context.Background())
			p.drain(t)
			live = append(live, t)
		}
	}
	for _, d := range problems {
		p.Diagnose(session.Diagnostic{At: now, Code: "capture", Message: d.Message})
	}
	if len(live) == 0 {
		if !p.muted {
			flushed := false
			for _, t := range p.order {
				t.ann.Flush(now)
				flushed = flushed || t.ann == p.ann
			}
			if !flushed {
				p.ann.Flush(now)
			}
		}
		p.say(now, why)
	}
	for _, t := range live { // each End says why, naming its agent
		r := t.run
		_ = r.c.CloseBecause(why)
		_ = p.hear(context.Background(), t, r.c) // to the End, queued by now
		r.stop()
	}
	p.flush()
}

// sayFor says s for t's connection, naming its agent when there are several.
func (p *player) sayFor(t *track, now time.Time, s string) {
	if t.name != "" {
		s = protocol.Name(t.name) + ": " + s
	}
	p.say(now, s)
}

func (p *player) say(now time.Time, s string) {
	if p.muted {
		return
	}
	if err := p.out.Say(now, s); err != nil {
		p.sinkFailed(err)
	}
}

func (p *player) flush() {
	if err := p.out.Flush(); err != nil {
		p.sinkFailed(err)
	}
}

func (p *player) sinkFailed(err error) { textout.Fprintf(p.errs, "aaep-replay: %v\n", err) }

// termsOf are the terms a recorded subscription request asked for.
func termsOf(c protocol.Capabilities) session.Terms {
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
