// command.go: the typed commands that steer playing.

package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Verb is what a play command does.
type Verb int

// The verbs of the play commands.
const (
	Pause    Verb = iota + 1 // stop before the next message
	Resume                   // go on at the current speed
	Step                     // play the next message, then stay paused
	Seek                     // go to a time: absolute, or relative with + or -
	Next                     // jump to the next critical event or mark
	Previous                 // jump back to the previous one
	Mark                     // set a mark here
	Speed                    // change (or say) the speed
	Where                    // say where playing is
	Toggle                   // pause when playing, resume when paused
	Faster                   // double the speed
	Slower                   // halve the speed
	Help                     // list the commands
	Quit                     // stop playing
)

// Command is one parsed play command.
type Command struct {
	Verb     Verb
	At       time.Duration // Seek: target, or offset when Relative
	Relative bool
	Critical bool    // Next, Previous: a critical event (else a mark)
	Speed    float64 // Speed; negative: only say it
}

// playHelp lists the play commands, one per line, in words (no columns).
const playHelp = `Commands while playing, one per line:
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

// ParseCommand reads one typed line. Errors are sentences for the user.
func ParseCommand(line string) (Command, error) {
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
		return one(Command{Verb: Pause})
	case "resume", "play", "r", "continue":
		return one(Command{Verb: Resume})
	case "step", "s":
		return one(Command{Verb: Step})
	case "mark", "m":
		return one(Command{Verb: Mark})
	case "toggle":
		return one(Command{Verb: Toggle})
	case "faster":
		return one(Command{Verb: Faster})
	case "slower":
		return one(Command{Verb: Slower})
	case "where", "w", "position":
		return one(Command{Verb: Where})
	case "help", "h", "?":
		return one(Command{Verb: Help})
	case "quit", "q", "exit", "stop":
		return one(Command{Verb: Quit})
	case "nc":
		return one(Command{Verb: Next, Critical: true})
	case "pc":
		return one(Command{Verb: Previous, Critical: true})
	case "nm":
		return one(Command{Verb: Next})
	case "pm":
		return one(Command{Verb: Previous})
	case "next", "previous", "prev", "back":
		v := Next
		if f[0] != "next" {
			v = Previous
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
			return Command{Verb: Speed, Speed: -1}, nil
		}
		x, err := strconv.ParseFloat(strings.TrimSuffix(arg, "x"), 64)
		if err != nil || x < 0 || x > 1000 || math.IsNaN(x) {
			return Command{}, fmt.Errorf("speed takes a number from 0 to 1000, such as 2 or 0.5, not %q", arg)
		}
		return Command{Verb: Speed, Speed: x}, nil
	case "seek", "go", "goto":
		c := Command{Verb: Seek}
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

// clock writes d as minutes and seconds with tenths: 1:30.0.
func clock(d time.Duration) string {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	tenths := d.Round(100*time.Millisecond) / (100 * time.Millisecond)
	return fmt.Sprintf("%s%d:%02d.%d", neg, tenths/600, tenths/10%60, tenths%10)
}
