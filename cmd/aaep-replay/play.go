// play.go: aaep-replay play: a capture through the listener's engine and announcer.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aaep-term/aaep-term/internal/cliflag"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

const playUsage = `Usage: aaep-replay play [--speed X] [--idle-limit D] [--json | --tui] [--verbosity V]
                        [--speech S] [--braille B] [--interactive] [--paused] FILE

Announces a capture as aaep-listen would have announced it live: the same
session engine (duplicates, order, lifecycle, prompts) and the same words,
one plain line per announcement (--json: one JSON record each; --tui: the
debug view of aaep-listen). --speech and --braille add the same speech and
braille outputs as aaep-listen. Prompts are shown but never answered; what
the recorded subscriber sent is read out as such.

Pacing follows the recorded receive times (or, for plain JSON lines, the
events' timestamps): --speed 1 is real time, 2 twice as fast, 0.5 half as
fast, 0 as fast as possible. No pause is longer than --idle-limit.

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

type player struct {
	out    output
	sinks  []announce.Sink // out, then any speech or braille output
	annCfg announce.Config
	ann    *announce.Announcer
	eng    *session.Engine
	dec    protocol.Decoder
	errs   io.Writer
	// muted drops what the engine delivers and what the player would say,
	// while a seek fast-forwards.
	muted bool
}

func (p *player) Deliver(d session.Delivery) {
	if !p.muted {
		p.ann.Deliver(d)
	}
}

func (p *player) Diagnose(d session.Diagnostic) {
	if !p.muted {
		p.ann.Diagnose(d)
	}
}

// reset starts the engine and the announcer afresh, as at the start of the
// capture; the outputs stay.
func (p *player) reset() {
	p.ann = announce.New(p.annCfg, p.sinks...)
	p.eng = session.New(session.Config{}, p)
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
	if *useTUI && *asJSON {
		return exitUnreadable, cliflag.Usagef("--tui and --json cannot be combined")
	}
	if *useTUI && (!tio.InTTY || !tio.OutTTY) {
		return exitUnreadable, cliflag.Usagef("--tui needs a terminal on standard input and output; leave it out for plain lines")
	}
	rd, err := openOne(files, "play")
	if err != nil {
		return exitUnreadable, err
	}
	defer rd.Close()
	p := newPlayer(tio.Out, tio.ErrOut, *asJSON, *verbosity)
	var cmds <-chan string
	if *useTUI {
		prog := startPlayTUI(tio, files[0])
		defer prog.Close()
		p.out, cmds = prog, playCommands(prog.Actions())
		p.sinks = []announce.Sink{prog}
	}
	outs := outputs.Open(ctx, so, func(s string) { p.say(time.Now(), s); p.flush() })
	defer outs.Close()
	p.sinks = append(p.sinks, outs.List...)
	p.reset()
	if !*useTUI && (*interactive || *paused || tio.InTTY) {
		cmds = readCommands(tio.In)
	}
	if cmds == nil {
		if err := p.play(ctx, rd, *speed, *idle); err != nil {
			return exitUnreadable, err
		}
		return exitOK, nil
	}
	st, err := loadSteered(p, rd)
	if err != nil {
		return exitUnreadable, err
	}
	st.speed, st.idle, st.paused, st.cmds = *speed, *idle, *paused, cmds
	st.stay = *useTUI || tio.InTTY
	if *useTUI {
		st.keysHelp = playKeysHelp
	}
	st.run(ctx)
	return exitOK, nil
}

// newPlayer returns a player announcing to w in line mode or, with asJSON,
// as JSON records; problems of the output go to errs.
func newPlayer(w, errs io.Writer, asJSON bool, verbosity string) *player {
	p := &player{errs: errs}
	if asJSON {
		p.out = line.NewJSON(w)
	} else {
		p.out = line.NewWriter(w, errs, line.WriterOptions{Location: time.UTC})
	}
	p.annCfg = announce.Config{Verbosity: verbosity, OnError: p.sinkFailed}
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
	if h := rd.Header(); h != nil {
		base, _ = time.Parse(time.RFC3339Nano, h.StartedAt)
	}
	if base.IsZero() {
		base = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	p.say(base, "Replaying a capture; prompts are shown but not answered.")
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.finish(lastAt, "The capture could not be read further.")
			return err
		}
		at := recordTime(rec, base, lastAt)
		if started && speed > 0 && at.After(lastAt) {
			wait := min(time.Duration(float64(at.Sub(lastAt))/speed), idle)
			p.flush()
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				p.finish(lastAt, "Stopped.")
				return nil
			}
		}
		if at.After(lastAt) || !started {
			lastAt = at
		}
		started = true
		p.eng.Tick(lastAt)
		p.record(rec, lastAt)
		messages++
	}
	for _, d := range diagnostics(rd) {
		p.Diagnose(session.Diagnostic{At: lastAt, Code: "capture", Message: d.Message})
	}
	p.finish(lastAt, fmt.Sprintf("End of the capture: %d %s replayed.", messages, prose.Plural(messages, "message", "messages")))
	return nil
}

func diagnostics(rd *capture.Reader) []capture.Diagnostic {
	d, _ := rd.Diagnostics()
	return d
}

// recordTime is when a record happened: its receive time, else the event's timestamp.
func recordTime(rec capture.Record, base, last time.Time) time.Time {
	if rec.HasT {
		return base.Add(time.Duration(rec.T * float64(time.Second)))
	}
	if ts := eventTime(rec.Msg); !ts.IsZero() {
		return ts
	}
	return last
}

func eventTime(msg []byte) time.Time {
	var m struct {
		Timestamp time.Time `json:"timestamp"`
	}
	if err := jsonUnmarshal(msg, &m); err != nil {
		return time.Time{}
	}
	return m.Timestamp
}

// record announces one record.
func (p *player) record(rec capture.Record, now time.Time) {
	switch {
	case rec.Note:
		return
	case rec.IsText():
		p.Diagnose(session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf("Line %d of the capture holds a frame that is not JSON.", rec.Line)})
		return
	}
	typ := protocol.PeekType(rec.Msg)
	if rec.Dir == capture.Out {
		p.say(now, fmt.Sprintf("The recorded subscriber sent %s.", sentWords(typ, rec.Msg)))
		return
	}
	switch typ {
	case protocol.TypeSubscriptionAccepted:
		p.say(now, "The producer accepted the subscription.")
		return
	case protocol.TypeSubscriptionRejected:
		p.say(now, "The producer refused the subscription.")
		return
	case protocol.TypeSubscriptionClose:
		p.say(now, "The producer closed the subscription.")
		return
	}
	ev, err := p.dec.Decode(rec.Msg)
	if err != nil {
		p.Diagnose(session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf("Line %d of the capture: %s.", rec.Line, protocol.Sanitize(err.Error()))})
	}
	if ev != nil {
		p.eng.Handle(ev, now)
	}
}

// sentWords describes a message the recorded subscriber sent.
func sentWords(typ string, msg []byte) string {
	switch typ {
	case protocol.TypeConfirmationReply:
		var m struct {
			Decision string `json:"decision"`
		}
		_ = jsonUnmarshal(msg, &m) // an unreadable reply is still named
		return "a confirmation reply: " + protocol.Sanitize(orDefault(m.Decision, "no decision"))
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

func (p *player) finish(now time.Time, why string) {
	p.eng.Flush(now)
	p.ann.Flush(now)
	p.eng.End(now, session.EndClosed)
	p.say(now, why)
	p.flush()
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
