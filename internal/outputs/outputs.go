// Package outputs opens the speech, braille and notification outputs an
// announcer can write to besides the terminal (speech and braille each
// behind a Pacer), as one set to close.
package outputs

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/braille"
	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/notify"
	"github.com/aaep-term/aaep-term/speech"
)

// Options choose the outputs.
type Options struct {
	Speech     string // auto, speechd, espeak, say, sapi or off ("" is off)
	Braille    string // auto or off ("" is off)
	BrlAPIHost string // "" means BRLAPI_HOST, else ":0"
	// ClientName names the program to speech-dispatcher, e.g. "user:aaep-replay:main".
	ClientName string
	Pace       announce.PaceConfig
	Getenv     func(string) string // nil: no environment

	Notify     string // desktop notifications: on, critical or off ("" is off)
	NotifyBell bool   // ring the bell with critical notifications
}

// AddFlags defines --speech, --braille and --brlapi-host on fs.
func AddFlags(fs *flag.FlagSet, o *Options) {
	fs.StringVar(&o.Speech, "speech", "off", "speak announcements: auto, speechd, espeak, say (macOS), sapi (Windows) or off")
	fs.StringVar(&o.Braille, "braille", "off", "show announcements on a braille display through BRLTTY: auto or off")
	fs.StringVar(&o.BrlAPIHost, "brlapi-host", "", "BrlAPI `HOST` of BRLTTY, as in BRLAPI_HOST (default :0)")
}

// AddNotifyFlags defines --notify and --notify-bell on fs.
func AddNotifyFlags(fs *flag.FlagSet, o *Options) {
	fs.StringVar(&o.Notify, "notify", "off", "desktop notifications: on, critical (only prompts and errors) or off")
	fs.BoolVar(&o.NotifyBell, "notify-bell", false, "ring the bell with critical notifications (never while --tui runs)")
}

// Check refuses unknown values before anything starts.
func (o Options) Check() error {
	if o.Notify != "" {
		if _, err := notify.ParseLevel(o.Notify); err != nil {
			return err
		}
	}
	switch o.Speech {
	case "auto", "speechd", "espeak", "say", "sapi", "off", "":
	default:
		return fmt.Errorf("--speech %q: want auto, speechd, espeak, say, sapi or off", o.Speech)
	}
	switch o.Braille {
	case "auto", "off", "":
	default:
		return fmt.Errorf("--braille %q: want auto or off", o.Braille)
	}
	return nil
}

// Set is the outputs that were started; any of them may be missing.
type Set struct {
	// List is the sinks to give the announcer.
	List []announce.Sink
	// Answers carries the accept N and reject N commands of the braille
	// display's routing keys, typed as line mode types them; nil without a
	// display.
	Answers <-chan command.Command
	closers []func() error
	pacers  []*announce.Pacer
}

// SayAgents switches on or off, for speech and braille, saying the agent's
// name when it changes and before every critical announcement: on while
// more than one agent is watched, or may be (--local). Options.Pace.SayAgents
// sets it from the start.
func (s *Set) SayAgents(on bool) {
	for _, p := range s.pacers {
		p.SayAgents(on)
	}
}

// Open starts the outputs o asks for. What was chosen, and a missing
// service, are told in one line each through note; the others go on.
func Open(ctx context.Context, o Options, note func(string)) *Set {
	s := &Set{}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if o.Speech != "" && o.Speech != "off" {
		b, msg, err := speech.Open(ctx, o.Speech, o.ClientName, speech.Env{Getenv: getenv})
		switch {
		case err != nil:
			note(fmt.Sprintf("No speech: %s.", reason(err, "speech")))
		case b == nil:
			note(msg + ".")
		default:
			note(msg + ".")
			sp := &speech.Sink{Backend: b}
			s.addPaced(o.Pace, sp, func(err error) { note(err.Error() + ".") })
			s.closers = append(s.closers, sp.Close)
		}
	}
	if o.Braille == "auto" {
		bo := braille.OptionsFromEnv(getenv)
		if o.BrlAPIHost != "" {
			bo.Host = o.BrlAPIHost
		}
		if err := s.openBraille(ctx, bo, o.Pace, note); err != nil {
			note(fmt.Sprintf("No braille: %s. %s", reason(err, "braille"), startBrltty(err)))
		} else {
			note("braille: BRLTTY display.")
		}
	}
	if level, _ := notify.ParseLevel(o.Notify); o.Notify != "" && level != notify.Off {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := notify.Check(cctx, getenv("DBUS_SESSION_BUS_ADDRESS"))
		cancel()
		if err != nil {
			note(fmt.Sprintf("No desktop notifications: %s.", reason(err, "notify")))
		} else {
			ns := notify.NewSink(notify.NewDesktop(o.NotifyBell), notify.Config{Level: level, OnError: Once(note, "Desktop notifications failed")})
			s.List = append(s.List, ns)
			s.closers = append(s.closers, ns.Close)
		}
	}
	return s
}

// reason is err's words without the "pkg: " its package begins them with,
// for a line that names the output already ("No speech: …").
func reason(err error, pkg string) string {
	return strings.TrimPrefix(err.Error(), pkg+": ")
}

// startBrltty says what to do when BRLTTY could not be reached, or what
// else to check.
func startBrltty(err error) string {
	if !errors.Is(err, braille.ErrUnreachable) {
		return "Check BRLTTY's settings (its API, and the key file BRLAPI_AUTH names)."
	}
	if _, lerr := exec.LookPath("brltty"); lerr != nil {
		return "Install brltty (the brltty package) and start it with your display connected, or give the address of a running one with --brlapi-host."
	}
	return "Start brltty (for example: sudo systemctl start brltty), or give the address of a running one with --brlapi-host."
}

// answer is the command a routing key on a braille display's prompt gives:
// a key on the prompt shown, which answers it only once it was shown long
// enough (subscriber.Answer).
func answer(n int, accept bool) command.Command {
	if accept {
		return command.Command{Verb: command.VerbAccept, Prompt: n, Word: "accept", Key: true}
	}
	return command.Command{Verb: command.VerbReject, Prompt: n, Word: "reject", Key: true}
}

func (s *Set) openBraille(ctx context.Context, o braille.Options, pc announce.PaceConfig, note func(string)) error {
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := braille.Dial(dctx, o)
	if err != nil {
		return err
	}
	answers := make(chan command.Command, 8)
	bs, err := braille.NewSink(dctx, c, braille.Config{OnError: Once(note, "The braille display stopped"),
		Redial:      func(ctx context.Context) (*braille.Client, error) { return braille.Dial(ctx, o) }, // when BRLTTY restarts
		OnReconnect: func() { note("The braille display is back.") },
		OnAnswer: func(n int, accept bool) {
			select {
			case answers <- answer(n, accept):
			default: // nobody reads answers fast enough: the key press is dropped
			}
		},
		OnSureAccept: func(n int) { // the second step was taken on the display
			c := answer(n, true)
			c.Sure = true
			select {
			case answers <- c:
			default:
			}
		}})
	if err != nil {
		c.Close()
		return err
	}
	s.Answers = answers
	s.addPaced(pc, bs, nil)
	s.closers = append(s.closers, bs.Close, c.Close)
	return nil
}

// addPaced adds out behind a Pacer, so it is told no faster than it can be
// taken in; the Pacer stops before out is closed.
func (s *Set) addPaced(pc announce.PaceConfig, out announce.Sink, onError func(error)) {
	pc.OnError = onError
	p := announce.NewPacer(pc, out)
	s.List = append(s.List, p)
	s.pacers = append(s.pacers, p)
	s.closers = append(s.closers, p.Close)
}

// Close stops the outputs, in the order they were started.
func (s *Set) Close() error {
	for _, c := range s.closers {
		_ = c() // each output has told its own failures
	}
	return nil
}

// Once returns an error handler that tells the user about the first error
// only, from any goroutine, so a failing service makes one line, not a flood.
func Once(note func(string), what string) func(error) {
	var o sync.Once
	return func(err error) {
		o.Do(func() { note(fmt.Sprintf("%s: %v. Other outputs go on.", what, err)) })
	}
}
