// steer.go: interactive play: pause, step, seek, jumps and speed, by typed commands.

package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/protocol"
)

// Player is what Steered plays the records of a capture through: a
// subscriber client per connection and what tells its updates.
type Player interface {
	// Record plays one record at its recorded time; received frames may
	// wait to be handed over with the others of their burst.
	Record(rec capture.Record, at time.Time)
	// Settle hands over the frames waiting and tells what comes of them.
	Settle()
	// Say tells a line of the player's own, at the recorded time at.
	Say(at time.Time, text string)
	// SayConnections names the connections of a capture of several, at.
	SayConnections(at time.Time, h *capture.Header)
	// Flush writes out what was told.
	Flush()
	// Reset starts afresh, as at the start of the capture.
	Reset()
	// Mute drops (true) or tells again (false) what the player would
	// tell, while a seek plays silently up to its target.
	Mute(muted bool)
	// Finish ends playing at at, saying why, after the problems met
	// reading the capture.
	Finish(at time.Time, why string, problems []capture.Diagnostic)
}

// Options are how Steered plays.
type Options struct {
	// Speed is the pace: 1 as recorded, 2 twice as fast, 0 as fast as possible.
	Speed float64
	// Idle is the longest pause between two records, whatever was recorded.
	Idle time.Duration
	// Paused starts paused, waiting for a command.
	Paused bool
	// Commands are the typed lines that steer playing; closed when no
	// more will come.
	Commands <-chan string
	// Stay keeps playing open at the end of the capture for commands
	// that go back (a person at a terminal); otherwise playing ends there.
	Stay bool
	// KeysHelp, when not empty, names the keys that steer playing (TUI).
	KeysHelp string
}

// Steered plays a capture steered by commands: it can go back as well as
// forward. Going back starts the engine afresh and replays silently up to
// the target, so what is announced after a jump is what the live listener
// would have said at that point.
//
// It holds one record of the capture at a time, never the capture: going
// back reads the capture afresh from its start, and finding a critical
// event, a session start or a time reads it through once more. So memory
// stays bounded however large the capture (a gzip file of a few megabytes
// may hold gigabytes of lines).
type Steered struct {
	header *capture.Header // the capture's, nil when it had none
	p      Player
	// open reads the capture afresh from its start.
	open func() (*capture.Reader, error)
	// rd is the reading playing now, times its records' times; cur is the
	// next record to play (when has), which happened at curAt.
	rd    *capture.Reader
	times timeline
	cur   capture.Record
	curAt time.Time
	has   bool
	// prevAt is when the record played last happened; prevFrame says it
	// was a received frame (a burst goes on only from a frame).
	prevAt    time.Time
	prevFrame bool
	next      int       // index of the next record to play (cur)
	total     int       // records in the capture
	last      time.Time // when its last record happened
	base      time.Time // the capture's start
	marks     []int     // indexes of the marks the user set, sorted
	dec       protocol.Decoder
	ended     bool // the engine was told the capture ended
	paused    bool
	stay      bool   // Options.Stay
	keysHelp  string // Options.KeysHelp
	speed     float64
	idle      time.Duration
	cmds      <-chan string
	// lastWall is when the last record was played, on the wall clock;
	// the next one is due its recorded gap (divided by speed) after it.
	lastWall time.Time
}

// maxMarks bounds the marks a user may set (commands may come from a file).
const maxMarks = 1000

// timeline turns the records of one reading, in order, into when each
// happened: its receive time, else its event's timestamp, never before the
// one before nor before the capture's start.
type timeline struct {
	base time.Time // the capture's start; found at the first record when zero
	last time.Time
}

func (tl *timeline) at(rec capture.Record) time.Time {
	if tl.base.IsZero() {
		if tl.base = RecordTime(rec, time.Time{}, time.Time{}); tl.base.IsZero() || rec.HasT {
			tl.base = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	at := RecordTime(rec, tl.base, tl.last)
	if at.Before(tl.last) || at.IsZero() {
		at = tl.last
	}
	if at.Before(tl.base) {
		at = tl.base
	}
	tl.last = at
	return at
}

// Load reads rd through once, counting its records and finding when it
// ends; open reads the same capture afresh for playing through p.
func Load(p Player, rd *capture.Reader, open func() (*capture.Reader, error), o Options) (*Steered, error) {
	s := &Steered{p: p, header: rd.Header(), open: open,
		speed: o.Speed, idle: o.Idle, paused: o.Paused, cmds: o.Commands, stay: o.Stay, keysHelp: o.KeysHelp}
	if h := rd.Header(); h != nil {
		s.base, _ = time.Parse(time.RFC3339Nano, h.StartedAt)
	}
	tl := timeline{base: s.base}
	if err := each(rd, &tl, func(int, capture.Record, time.Time) bool { s.total++; return true }); err != nil {
		return nil, err
	}
	s.base, s.last = tl.base, tl.last
	if s.base.IsZero() { // no record
		s.base = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if err := s.rewind(); err != nil {
		return nil, err
	}
	return s, nil
}

// each calls f with the index, record and time of each record of rd until
// f returns false or rd ends.
func each(rd *capture.Reader, tl *timeline, f func(i int, rec capture.Record, at time.Time) bool) error {
	for i := 0; ; i++ {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !f(i, rec, tl.at(rec)) {
			return nil
		}
	}
}

// scan reads the capture afresh, calling f as each does.
func (s *Steered) scan(f func(i int, rec capture.Record, at time.Time) bool) error {
	rd, err := s.open()
	if err != nil {
		return err
	}
	defer rd.Close()
	return each(rd, &timeline{base: s.base}, f)
}

// rewind starts reading the capture afresh: its first record is the next.
func (s *Steered) rewind() error {
	if s.rd != nil {
		s.rd.Close()
	}
	rd, err := s.open()
	if err != nil {
		s.rd, s.has = nil, false
		return err
	}
	s.rd, s.times, s.next, s.prevAt, s.prevFrame = rd, timeline{base: s.base}, 0, s.base, false
	s.advance()
	return nil
}

// advance reads the record after cur. The capture read differently from
// its first reading (changed meanwhile) ends where it ends.
func (s *Steered) advance() {
	rec, err := s.rd.Next()
	if err != nil {
		s.has = false
		return
	}
	s.cur, s.curAt, s.has = rec, s.times.at(rec), true
}

// close ends the reading playing now.
func (s *Steered) close() {
	if s.rd != nil {
		s.rd.Close()
	}
}

// critical and sessionStart say what a record is, for jumps.
func (s *Steered) critical(rec capture.Record) bool {
	ev := s.event(rec)
	return ev != nil && ev.IsCritical()
}

func (s *Steered) sessionStart(rec capture.Record) bool {
	ev := s.event(rec)
	return ev != nil && ev.Type == protocol.TypeSessionStarted
}

func (s *Steered) event(rec capture.Record) *protocol.Event {
	if rec.Note || rec.IsText() || rec.Dir != capture.In {
		return nil
	}
	ev, _ := s.dec.Decode(rec.Msg)
	return ev
}

// ReadCommands sends each line of r on the channel it returns, which is
// closed at the end of r.
func ReadCommands(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// Run plays until the end of the capture (and, while commands can still
// come, waits at the end for one to go back), quit, or ctx is done.
func (s *Steered) Run(ctx context.Context) {
	defer s.close()
	s.p.Say(s.base, fmt.Sprintf("Replaying %d %s over %s; prompts are shown but not answered. Type help for the commands.",
		s.total, prose.Plural(s.total, "message", "messages"), clock(s.last.Sub(s.base))))
	s.p.SayConnections(s.base, s.header)
	if s.keysHelp != "" {
		s.tell(s.keysHelp)
	}
	if s.paused {
		s.tell("Paused at the start: type resume to play, or step for one message.")
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	s.lastWall = time.Now()
	for {
		if !s.has && !s.ended {
			s.end(fmt.Sprintf("End of the capture: %d %s replayed.", s.total, prose.Plural(s.total, "message", "messages")))
			if s.stay && s.cmds != nil {
				s.tell("Type seek, previous critical or previous mark to go back, or quit.")
			}
		}
		if s.ended && (s.cmds == nil || !s.stay) {
			return
		}
		var due <-chan time.Time
		if !s.paused && s.has {
			wait := s.wait()
			if wait <= 0 {
				select { // commands first, so pause works at any speed
				case line, ok := <-s.cmds:
					if !s.command(line, ok) {
						return
					}
				case <-ctx.Done():
					s.end("Stopped.")
					return
				default:
					s.play()
				}
				continue
			}
			timer.Reset(wait)
			due = timer.C
		}
		select {
		case <-ctx.Done():
			s.end("Stopped.")
			return
		case <-due:
			s.play()
		case line, ok := <-s.cmds:
			timer.Stop()
			if !s.command(line, ok) {
				return
			}
		}
	}
}

// wait is how long until the next record is due.
func (s *Steered) wait() time.Duration {
	if s.speed <= 0 || s.next == 0 {
		return 0
	}
	gap := min(time.Duration(float64(s.curAt.Sub(s.prevAt))/s.speed), s.idle)
	return time.Until(s.lastWall.Add(gap))
}

// play announces the next record, with the frames received in the same
// instant (one burst for the client).
func (s *Steered) play() {
	s.feed(-1)
	s.lastWall = time.Now()
	s.p.Flush()
}

// feed gives the client the next record, and those received in the same
// instant before record limit (-1: to the end of the burst).
func (s *Steered) feed(limit int) {
	s.step()
	for s.has && (limit < 0 || s.next < limit) && s.sameBurst() {
		s.step()
	}
	s.p.Settle()
}

// step hands cur to the player and reads the record after it.
func (s *Steered) step() {
	s.p.Record(s.cur, s.curAt)
	s.prevAt, s.prevFrame = s.curAt, isFrame(s.cur)
	s.next++
	s.advance()
}

// sameBurst reports whether the record played last and cur are frames
// received together (Together).
func (s *Steered) sameBurst() bool {
	return s.prevFrame && isFrame(s.cur) && Together(s.prevAt, s.curAt)
}

// end tells the engine the capture ended here; at its end, with the
// problems met reading it (a gzip file cut short, lines skipped).
func (s *Steered) end(why string) {
	var problems []capture.Diagnostic
	if !s.has && s.rd != nil {
		problems = Problems(s.rd)
	}
	s.p.Finish(s.now(), why, problems)
	s.ended = true
}

// now is the recorded time of the record played last (the start, before any).
func (s *Steered) now() time.Time {
	if s.next > 0 {
		return s.prevAt
	}
	return s.base
}

// tell says a line of the player's own, at the current position.
func (s *Steered) tell(text string) {
	s.p.Say(s.now(), text)
	s.p.Flush()
}

// position is how far into the capture the next record is (the end, after the last).
func (s *Steered) position() time.Duration {
	if !s.has {
		return s.last.Sub(s.base)
	}
	return s.curAt.Sub(s.base)
}

// command carries out one typed line; false means stop playing. ok false
// means no more commands will come: play on to the end.
func (s *Steered) command(line string, ok bool) bool {
	if !ok {
		s.cmds = nil
		if s.paused && s.has {
			s.paused = false
			s.tell("No more commands: playing on to the end.")
		}
		return true
	}
	c, err := command.ParsePlay(line)
	if err != nil {
		s.tell(prose.Stop(capitalFirst(err.Error())))
		return true
	}
	switch c.Verb {
	case command.VerbQuit:
		s.end("Stopped.")
		return false
	case command.VerbHelp:
		for _, l := range strings.Split(command.PlayHelp, "\n") {
			s.tell(strings.TrimSpace(l))
		}
	case command.VerbToggle:
		if s.paused {
			return s.command("resume", true)
		}
		return s.command("pause", true)
	case command.VerbFaster, command.VerbSlower:
		switch {
		case s.speed <= 0:
			s.tell("Already as fast as possible; speed X sets a pace.")
			return true
		case c.Verb == command.VerbFaster:
			s.speed = min(s.speed*2, 1000)
		default:
			s.speed /= 2
		}
		s.tell(fmt.Sprintf("Speed %s.", speedWords(s.speed)))
	case command.VerbPause:
		s.paused = true
		s.tell("Paused at " + s.where() + ". Type resume to go on.")
	case command.VerbResume:
		s.paused = false
		s.lastWall = time.Now()
		if !s.has {
			s.tell("At the end of the capture: nothing more to play.")
		} else {
			s.tell(fmt.Sprintf("Playing at speed %s.", speedWords(s.speed)))
		}
	case command.VerbStep:
		s.paused = true
		if !s.has {
			s.tell("At the end of the capture: nothing more to play.")
		} else {
			s.play()
		}
	case command.VerbSpeed:
		if c.Speed >= 0 {
			s.speed = c.Speed
			s.tell(fmt.Sprintf("Speed %s.", speedWords(s.speed)))
		} else {
			s.tell(fmt.Sprintf("Speed %s; speed X changes it.", speedWords(s.speed)))
		}
	case command.VerbWhere:
		state := "playing at speed " + speedWords(s.speed)
		if s.paused {
			state = "paused"
		}
		s.tell(fmt.Sprintf("At %s, %s.", s.where(), state))
	case command.VerbMark:
		switch {
		case slices.Contains(s.marks, s.next):
		case len(s.marks) >= maxMarks:
			s.tell(fmt.Sprintf("Mark not set: %d marks are the most.", maxMarks))
			return true
		default:
			s.marks = append(s.marks, s.next)
			slices.Sort(s.marks)
		}
		s.tell("Mark set at " + s.where() + ".")
	case command.VerbSeek:
		target := c.At
		if c.Relative {
			if s.next > 0 { // from the record played last
				target += s.prevAt.Sub(s.base)
			} else {
				target += s.position()
			}
		}
		i := s.total
		s.search(func(j int, rec capture.Record, at time.Time) bool {
			if at.Sub(s.base) >= target {
				i = j
				return false
			}
			return true
		})
		s.jump(i, fmt.Sprintf("Went to %s", clock(max(target, 0))))
	case command.VerbNext, command.VerbPrevious:
		s.jumpTo(c)
	}
	return true
}

// search reads the capture afresh for a jump's target; a capture that can
// no longer be read is said so and leaves the target as it was.
func (s *Steered) search(f func(i int, rec capture.Record, at time.Time) bool) {
	if err := s.scan(f); err != nil {
		s.tell(prose.Stop(capitalFirst(fmt.Sprintf("the capture could not be read again: %v", err))))
	}
}

// jumpTo goes to the next or previous critical event or mark and plays it.
func (s *Steered) jumpTo(c command.Command) {
	is, what := s.sessionStart, "mark"
	if c.Critical {
		is, what = s.critical, "critical event"
	}
	mark := func(i int) bool { return !c.Critical && slices.Contains(s.marks, i) }
	target := -1
	if c.Verb == command.VerbNext {
		s.search(func(i int, rec capture.Record, _ time.Time) bool {
			if i >= s.next && (mark(i) || is(rec)) {
				target = i
				return false
			}
			return true
		})
	} else {
		// The one before the record last played.
		s.search(func(i int, rec capture.Record, _ time.Time) bool {
			if i >= s.next-1 {
				return false
			}
			if mark(i) || is(rec) {
				target = i
			}
			return true
		})
	}
	if target < 0 {
		dir := "after"
		if c.Verb == command.VerbPrevious {
			dir = "before"
		}
		s.tell(fmt.Sprintf("No %s %s this point.", what, dir))
		return
	}
	s.jump(target, fmt.Sprintf("Jumped to the %s %s", map[command.Verb]string{command.VerbNext: "next", command.VerbPrevious: "previous"}[c.Verb], what))
	if s.has {
		s.play()
	}
}

// jump makes record i the next to play: backwards by starting afresh,
// forwards by playing silently up to it.
func (s *Steered) jump(i int, why string) {
	i = min(max(i, 0), s.total)
	if i < s.next || s.ended {
		s.p.Flush()
		s.p.Reset()
		s.ended = false
		if err := s.rewind(); err != nil {
			s.tell(prose.Stop(capitalFirst(fmt.Sprintf("the capture could not be read again: %v", err))))
			return
		}
	}
	s.p.Mute(true)
	for s.has && s.next < i {
		s.feed(i)
	}
	s.p.Mute(false)
	s.lastWall = time.Now()
	s.tell(why + ": " + s.where() + ".")
}

// where says where playing is, in words.
func (s *Steered) where() string {
	if !s.has {
		return fmt.Sprintf("the end of the capture, %s", clock(s.last.Sub(s.base)))
	}
	return fmt.Sprintf("%s of %s, line %d, message %d of %d", clock(s.position()), clock(s.last.Sub(s.base)),
		s.cur.Line, s.next+1, s.total)
}

func speedWords(x float64) string {
	if x <= 0 {
		return "0, as fast as possible"
	}
	return fmt.Sprintf("%g", x)
}

func capitalFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
