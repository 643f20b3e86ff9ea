// control.go: interactive play: pause, step, seek, jumps and speed, by typed commands.

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/protocol"
)

// steered plays a capture held in memory, steered by commands: it can go
// back as well as forward. Going back starts the engine afresh and replays
// silently up to the target, so what is announced after a jump is what the
// live listener would have said at that point.
type steered struct {
	header *capture.Header // the capture's, nil when it had none
	p      *player
	recs   []capture.Record
	at     []time.Time // when each record happened; never decreasing
	base   time.Time   // the capture's start
	crit   []int       // indexes of critical events
	marks  []int       // indexes of marks: session starts and marks set, sorted
	next   int         // index of the next record to play
	ended  bool        // the engine was told the capture ended
	paused bool
	// stay keeps playing open at the end of the capture for commands that
	// go back (a person at a terminal); otherwise playing ends there.
	stay bool
	// keysHelp, when not empty, names the keys that steer playing (TUI).
	keysHelp string
	speed    float64
	idle     time.Duration
	cmds     <-chan string
	// lastWall is when the last record was played, on the wall clock;
	// the next one is due its recorded gap (divided by speed) after it.
	lastWall time.Time
}

// loadSteered reads every record of rd into memory and finds the critical
// events and session starts.
func loadSteered(p *player, rd *capture.Reader) (*steered, error) {
	s := &steered{p: p, header: rd.Header()}
	if p.nameOf == nil {
		p.useNames(rd)
	}
	if h := rd.Header(); h != nil {
		s.base, _ = time.Parse(time.RFC3339Nano, h.StartedAt)
	}
	var last time.Time
	var dec protocol.Decoder
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if s.base.IsZero() {
			if s.base = recordTime(rec, time.Time{}, time.Time{}); s.base.IsZero() || rec.HasT {
				s.base = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
			}
		}
		at := recordTime(rec, s.base, last)
		if at.Before(last) || at.IsZero() {
			at = last
		}
		if at.Before(s.base) {
			at = s.base
		}
		last = at
		i := len(s.recs)
		s.recs = append(s.recs, rec)
		s.at = append(s.at, at)
		if rec.Note || rec.IsText() || rec.Dir != capture.In {
			continue
		}
		if ev, _ := dec.Decode(rec.Msg); ev != nil {
			if ev.IsCritical() {
				s.crit = append(s.crit, i)
			}
			if ev.Type == protocol.TypeSessionStarted {
				s.marks = append(s.marks, i)
			}
		}
	}
	return s, nil
}

// readCommands sends each line of r on the channel it returns, which is
// closed at the end of r.
func readCommands(r io.Reader) <-chan string {
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

// run plays until the end of the capture (and, while commands can still
// come, waits at the end for one to go back), quit, or ctx is done.
func (s *steered) run(ctx context.Context) {
	total := s.position(len(s.recs))
	s.p.say(s.base, fmt.Sprintf("Replaying %d %s over %s; prompts are shown but not answered. Type help for the commands.",
		len(s.recs), prose.Plural(len(s.recs), "message", "messages"), clock(total)))
	s.p.sayConnections(s.base, s.header)
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
		if s.next >= len(s.recs) && !s.ended {
			s.end(fmt.Sprintf("End of the capture: %d %s replayed.", len(s.recs), prose.Plural(len(s.recs), "message", "messages")))
			if s.stay && s.cmds != nil {
				s.tell("Type seek, previous critical or previous mark to go back, or quit.")
			}
		}
		if s.ended && (s.cmds == nil || !s.stay) {
			return
		}
		var due <-chan time.Time
		if !s.paused && s.next < len(s.recs) {
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
func (s *steered) wait() time.Duration {
	if s.speed <= 0 || s.next == 0 {
		return 0
	}
	gap := min(time.Duration(float64(s.at[s.next].Sub(s.at[s.next-1]))/s.speed), s.idle)
	return time.Until(s.lastWall.Add(gap))
}

// play announces the next record, with the frames received in the same
// instant (one burst for the client).
func (s *steered) play() {
	s.feed(len(s.recs))
	s.lastWall = time.Now()
	s.p.flush()
}

// feed gives the client the next record, and those received in the same
// instant before record limit.
func (s *steered) feed(limit int) {
	first := s.next
	s.p.record(s.recs[first], s.at[first])
	for s.next++; s.next < limit && s.sameBurst(s.next-1, s.next); s.next++ {
		s.p.record(s.recs[s.next], s.at[s.next])
	}
	s.p.settle()
}

// sameBurst reports whether records i and j, the one after, are frames
// received together (player.record's rule).
func (s *steered) sameBurst(i, j int) bool {
	frame := func(r capture.Record) bool { return r.Dir == capture.In && !r.Note && !r.IsText() }
	return frame(s.recs[i]) && frame(s.recs[j]) && together(s.at[i], s.at[j])
}

// end tells the engine the capture ended here.
func (s *steered) end(why string) {
	now := s.base
	if s.next > 0 {
		now = s.at[s.next-1]
	}
	s.p.finish(now, why, nil)
	s.ended = true
}

// tell says a line of the player's own, at the current position.
func (s *steered) tell(text string) {
	now := s.base
	if s.next > 0 {
		now = s.at[s.next-1]
	}
	s.p.say(now, text)
	s.p.flush()
}

// position is how far into the capture record i is (len(recs): the end).
func (s *steered) position(i int) time.Duration {
	switch {
	case len(s.recs) == 0:
		return 0
	case i >= len(s.recs):
		return s.at[len(s.recs)-1].Sub(s.base)
	}
	return s.at[i].Sub(s.base)
}

// command carries out one typed line; false means stop playing. ok false
// means no more commands will come: play on to the end.
func (s *steered) command(line string, ok bool) bool {
	if !ok {
		s.cmds = nil
		if s.paused && s.next < len(s.recs) {
			s.paused = false
			s.tell("No more commands: playing on to the end.")
		}
		return true
	}
	c, err := parseCommand(line)
	if err != nil {
		s.tell(prose.Stop(capitalFirst(err.Error())))
		return true
	}
	switch c.verb {
	case cmdQuit:
		s.end("Stopped.")
		return false
	case cmdHelp:
		for _, l := range strings.Split(playHelp, "\n") {
			s.tell(strings.TrimSpace(l))
		}
	case cmdToggle:
		if s.paused {
			return s.command("resume", true)
		}
		return s.command("pause", true)
	case cmdFaster, cmdSlower:
		switch {
		case s.speed <= 0:
			s.tell("Already as fast as possible; speed X sets a pace.")
			return true
		case c.verb == cmdFaster:
			s.speed = min(s.speed*2, 1000)
		default:
			s.speed /= 2
		}
		s.tell(fmt.Sprintf("Speed %s.", speedWords(s.speed)))
	case cmdPause:
		s.paused = true
		s.tell("Paused at " + s.where() + ". Type resume to go on.")
	case cmdResume:
		s.paused = false
		s.lastWall = time.Now()
		if s.next >= len(s.recs) {
			s.tell("At the end of the capture: nothing more to play.")
		} else {
			s.tell(fmt.Sprintf("Playing at speed %s.", speedWords(s.speed)))
		}
	case cmdStep:
		s.paused = true
		if s.next >= len(s.recs) {
			s.tell("At the end of the capture: nothing more to play.")
		} else {
			s.play()
		}
	case cmdSpeed:
		if c.speed >= 0 {
			s.speed = c.speed
			s.tell(fmt.Sprintf("Speed %s.", speedWords(s.speed)))
		} else {
			s.tell(fmt.Sprintf("Speed %s; speed X changes it.", speedWords(s.speed)))
		}
	case cmdWhere:
		state := "playing at speed " + speedWords(s.speed)
		if s.paused {
			state = "paused"
		}
		s.tell(fmt.Sprintf("At %s, %s.", s.where(), state))
	case cmdMark:
		if !slices.Contains(s.marks, s.next) {
			s.marks = append(s.marks, s.next)
			slices.Sort(s.marks)
		}
		s.tell("Mark set at " + s.where() + ".")
	case cmdSeek:
		target := c.at
		if c.relative {
			target += s.position(max(s.next-1, 0))
		}
		i := sort.Search(len(s.recs), func(i int) bool { return s.at[i].Sub(s.base) >= target })
		s.jump(i, fmt.Sprintf("Went to %s", clock(max(target, 0))))
	case cmdNext, cmdPrevious:
		s.jumpTo(c)
	}
	return true
}

// jumpTo goes to the next or previous critical event or mark and plays it.
func (s *steered) jumpTo(c command) {
	list, what := s.marks, "mark"
	if c.critical {
		list, what = s.crit, "critical event"
	}
	target := -1
	if c.verb == cmdNext {
		if k := sort.SearchInts(list, s.next); k < len(list) {
			target = list[k]
		}
	} else if k := sort.SearchInts(list, s.next-1); k > 0 {
		// The one before the record last played.
		target = list[k-1]
	}
	if target < 0 {
		dir := "after"
		if c.verb == cmdPrevious {
			dir = "before"
		}
		s.tell(fmt.Sprintf("No %s %s this point.", what, dir))
		return
	}
	s.jump(target, fmt.Sprintf("Jumped to the %s %s", map[verb]string{cmdNext: "next", cmdPrevious: "previous"}[c.verb], what))
	if s.next < len(s.recs) {
		s.play()
	}
}

// jump makes record i the next to play: backwards by starting afresh,
// forwards by playing silently up to it.
func (s *steered) jump(i int, why string) {
	i = min(max(i, 0), len(s.recs))
	if i < s.next || s.ended {
		s.p.flush()
		s.p.reset()
		s.next, s.ended = 0, false
	}
	s.p.muted = true
	for s.next < i {
		s.feed(i)
	}
	s.p.muted = false
	s.lastWall = time.Now()
	s.tell(why + ": " + s.where() + ".")
}

// where says where playing is, in words.
func (s *steered) where() string {
	if s.next >= len(s.recs) {
		return fmt.Sprintf("the end of the capture, %s", clock(s.position(len(s.recs))))
	}
	return fmt.Sprintf("%s of %s, line %d, message %d of %d", clock(s.position(s.next)), clock(s.position(len(s.recs))),
		s.recs[s.next].Line, s.next+1, len(s.recs))
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
