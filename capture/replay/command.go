// command.go: the typed commands that steer play.

package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// verb is what a play command does.
type verb int

const (
	cmdPause    verb = iota + 1 // stop before the next message
	cmdResume                   // go on at the current speed
	cmdStep                     // play the next message, then stay paused
	cmdSeek                     // go to a time: absolute, or relative with + or -
	cmdNext                     // jump to the next critical event or mark
	cmdPrevious                 // jump back to the previous one
	cmdMark                     // set a mark here
	cmdSpeed                    // change (or say) the speed
	cmdWhere                    // say where playing is
	cmdToggle                   // pause when playing, resume when paused
	cmdFaster                   // double the speed
	cmdSlower                   // halve the speed
	cmdHelp
	cmdQuit
)

// command is one parsed play command.
type command struct {
	verb     verb
	at       time.Duration // cmdSeek: target, or offset when relative
	relative bool
	critical bool    // cmdNext, cmdPrevious: a critical event (else a mark)
	speed    float64 // cmdSpeed; negative: only say it
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

// parseCommand reads one typed line. Errors are sentences for the user.
func parseCommand(line string) (command, error) {
	f := strings.Fields(strings.ToLower(line))
	if len(f) == 0 {
		return command{}, fmt.Errorf("type a command; help lists them")
	}
	arg := strings.Join(f[1:], " ")
	one := func(c command) (command, error) {
		if arg != "" {
			return command{}, fmt.Errorf("%s takes nothing after it", f[0])
		}
		return c, nil
	}
	switch f[0] {
	case "pause", "p":
		return one(command{verb: cmdPause})
	case "resume", "play", "r", "continue":
		return one(command{verb: cmdResume})
	case "step", "s":
		return one(command{verb: cmdStep})
	case "mark", "m":
		return one(command{verb: cmdMark})
	case "toggle":
		return one(command{verb: cmdToggle})
	case "faster":
		return one(command{verb: cmdFaster})
	case "slower":
		return one(command{verb: cmdSlower})
	case "where", "w", "position":
		return one(command{verb: cmdWhere})
	case "help", "h", "?":
		return one(command{verb: cmdHelp})
	case "quit", "q", "exit", "stop":
		return one(command{verb: cmdQuit})
	case "nc":
		return one(command{verb: cmdNext, critical: true})
	case "pc":
		return one(command{verb: cmdPrevious, critical: true})
	case "nm":
		return one(command{verb: cmdNext})
	case "pm":
		return one(command{verb: cmdPrevious})
	case "next", "previous", "prev", "back":
		v := cmdNext
		if f[0] != "next" {
			v = cmdPrevious
		}
		switch arg {
		case "critical", "critical event", "":
			return command{verb: v, critical: true}, nil
		case "mark":
			return command{verb: v}, nil
		}
		return command{}, fmt.Errorf("%s what? Say %s critical or %s mark", f[0], f[0], f[0])
	case "speed":
		if arg == "" {
			return command{verb: cmdSpeed, speed: -1}, nil
		}
		x, err := strconv.ParseFloat(strings.TrimSuffix(arg, "x"), 64)
		if err != nil || x < 0 || x > 1000 || math.IsNaN(x) {
			return command{}, fmt.Errorf("speed takes a number from 0 to 1000, such as 2 or 0.5, not %q", arg)
		}
		return command{verb: cmdSpeed, speed: x}, nil
	case "seek", "go", "goto":
		c := command{verb: cmdSeek}
		back := strings.HasPrefix(arg, "-")
		if back || strings.HasPrefix(arg, "+") {
			c.relative, arg = true, strings.TrimSpace(arg[1:])
		}
		d, err := parseClock(arg)
		if err != nil {
			return command{}, err
		}
		c.at = d
		if back {
			c.at = -d
		}
		return c, nil
	}
	return command{}, fmt.Errorf("%q is no command; help lists them", f[0])
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
