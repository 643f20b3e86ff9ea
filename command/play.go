package command

// play.go: the commands that steer a capture played (aaep-replay play):
// typed lines, and the TUI's keys as the lines they stand for.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// PlayHelp lists the play commands, one per line, in words (no columns).
const PlayHelp = `Commands while playing, one per line:
pause, or p: stop before the next message.
resume, or r: go on.
step, or s: play the next message, then stay paused.
seek TIME: go to TIME from the start, such as 90s, 1m30s or 1:30; seek +10s or seek -10s moves from here.
next critical, or nc: jump to the next critical event (an error, a prompt, a hand-off).
previous critical, or pc: jump back to the previous critical event.
next mark, or nm: jump to the next mark (a session start, or one you set).
previous mark, or pm: jump back to the previous mark.
mark, or m: set a mark here.
speed X: play at X times the recorded pace; speed 0 is as fast as possible; speed alone says it; faster and slower double and halve it.
where, or w: say where playing is.
help, or h: this list.
quit, or q: stop.`

// ParsePlay reads one line typed while a capture plays: a play verb
// (VerbPause … VerbSlower, VerbHelp, VerbQuit). Errors are sentences for
// the user.
func ParsePlay(line string) (Command, error) {
	f := strings.Fields(strings.ToLower(line))
	if len(f) == 0 {
		return Command{}, fmt.Errorf("type a command; help lists them")
	}
	arg := strings.Join(f[1:], " ")
	one := func(c Command) (Command, error) {
		if arg != "" {
			return Command{}, fmt.Errorf("%s takes nothing after it", f[0])
		}
		return c, nil
	}
	switch f[0] {
	case "pause", "p":
		return one(Command{Verb: VerbPause})
	case "resume", "play", "r", "continue":
		return one(Command{Verb: VerbResume})
	case "step", "s":
		return one(Command{Verb: VerbStep})
	case "mark", "m":
		return one(Command{Verb: VerbMark})
	case "toggle":
		return one(Command{Verb: VerbToggle})
	case "faster":
		return one(Command{Verb: VerbFaster})
	case "slower":
		return one(Command{Verb: VerbSlower})
	case "where", "w", "position":
		return one(Command{Verb: VerbWhere})
	case "help", "h", "?":
		return one(Command{Verb: VerbHelp})
	case "quit", "q", "exit", "stop":
		return one(Command{Verb: VerbQuit})
	case "nc":
		return one(Command{Verb: VerbNext, Critical: true})
	case "pc":
		return one(Command{Verb: VerbPrevious, Critical: true})
	case "nm":
		return one(Command{Verb: VerbNext})
	case "pm":
		return one(Command{Verb: VerbPrevious})
	case "next", "previous", "prev", "back":
		v := VerbNext
		if f[0] != "next" {
			v = VerbPrevious
		}
		switch arg {
		case "critical", "critical event", "":
			return Command{Verb: v, Critical: true}, nil
		case "mark":
			return Command{Verb: v}, nil
		}
		return Command{}, fmt.Errorf("%s what? Say %s critical or %s mark", f[0], f[0], f[0])
	case "speed":
		if arg == "" {
			return Command{Verb: VerbSpeed, Speed: -1}, nil
		}
		x, err := strconv.ParseFloat(strings.TrimSuffix(arg, "x"), 64)
		if err != nil || x < 0 || x > 1000 || math.IsNaN(x) {
			return Command{}, fmt.Errorf("speed takes a number from 0 to 1000, such as 2 or 0.5, not %q", arg)
		}
		return Command{Verb: VerbSpeed, Speed: x}, nil
	case "seek", "go", "goto":
		c := Command{Verb: VerbSeek}
		back := strings.HasPrefix(arg, "-")
		if back || strings.HasPrefix(arg, "+") {
			c.Relative, arg = true, strings.TrimSpace(arg[1:])
		}
		d, err := parseClock(arg)
		if err != nil {
			return Command{}, err
		}
		c.At = d
		if back {
			c.At = -d
		}
		return c, nil
	}
	return Command{}, fmt.Errorf("%q is no command; help lists them", f[0])
}

// parseClock reads a time from the start: a Go duration (90s, 1m30s), a
// number of seconds, or minutes:seconds (1:30, 1:02:03).
func parseClock(s string) (time.Duration, error) {
	bad := fmt.Errorf("seek takes a time such as 90s, 1m30s or 1:30, not %q", s)
	if s == "" {
		return 0, bad
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return 0, bad
	}
	var total float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || (i > 0 && v >= 60) {
			return 0, bad
		}
		total = total*60 + v
	}
	if total > 1e6 {
		return 0, bad
	}
	return time.Duration(total * float64(time.Second)), nil
}
