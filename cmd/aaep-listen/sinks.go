package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/braille"
	"github.com/aaep-term/aaep-term/notify"
	"github.com/aaep-term/aaep-term/speech"
)

// sinkOptions choose the speech, braille and notification outputs.
type sinkOptions struct {
	Speech     string // auto, speechd, espeak, say, sapi or off
	Braille    string // auto or off
	BrlAPIHost string // "" means BRLAPI_HOST, else ":0"
	Notify     string // on, off or critical
	NotifyBell bool
	Getenv     func(string) string
	Config     string // --config: the announcement settings file

	fs       *flag.FlagSet       // to tell flags given from defaults
	settings announce.Settings   // read from Config by check
	pace     announce.PaceConfig // settled by options.paced
}

// addSinkFlags defines the sink flags on fs.
func addSinkFlags(fs *flag.FlagSet, o *sinkOptions, getenv func(string) string) {
	o.Getenv, o.fs = getenv, fs
	fs.StringVar(&o.Speech, "speech", "off", "speak announcements: auto, speechd, espeak, say (macOS), sapi (Windows) or off")
	fs.StringVar(&o.Braille, "braille", "off", "show announcements on a braille display through BRLTTY: auto or off")
	fs.StringVar(&o.BrlAPIHost, "brlapi-host", "", "BrlAPI `HOST` of BRLTTY, as in BRLAPI_HOST (default :0)")
	fs.StringVar(&o.Notify, "notify", "off", "desktop notifications: on, critical (only prompts and errors) or off")
	fs.BoolVar(&o.NotifyBell, "notify-bell", false, "ring the bell with critical notifications (never while --tui runs)")
	fs.StringVar(&o.Config, "config", "", "announcement settings `FILE` (JSON: verbosity, pace, per-type overrides; default aaep-term/"+settingsFile+" in your config directory, when present)")
}

// check refuses unknown sink flag values before anything starts, and reads
// the announcement settings file.
func (o *sinkOptions) check() error {
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
	if _, err := notify.ParseLevel(o.Notify); err != nil {
		return err
	}
	return o.loadSettings()
}

// sinks are the optional outputs that were started; any of them may be missing.
type sinks struct {
	list    []announce.Sink
	closers []func() error
	answers chan string // "accept N" / "reject N" from the braille display; nil without one
}

// openSinks starts the outputs o asks for. A missing service is told in one
// line through note and the others go on.
func openSinks(ctx context.Context, o sinkOptions, tui bool, note func(string)) *sinks {
	s := &sinks{}
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if o.Speech != "" && o.Speech != "off" {
		b, msg, err := speech.Open(ctx, o.Speech, "user:aaep-listen:main", speech.Env{Getenv: getenv})
		switch {
		case err != nil:
			note(fmt.Sprintf("No speech: %v.", err))
		case b == nil:
			note(msg + ".")
		default:
			note(msg + ".")
			sp := &speech.Sink{Backend: b}
			s.addPaced(o.pace, sp, func(err error) { note(err.Error() + ".") }) // told once an outage
			s.closers = append(s.closers, sp.Close)
		}
	}
	if o.Braille == "auto" {
		bo := braille.OptionsFromEnv(getenv)
		if o.BrlAPIHost != "" {
			bo.Host = o.BrlAPIHost
		}
		if err := s.openBraille(ctx, bo, o.pace, note); err != nil {
			note(fmt.Sprintf("No braille: %v.", err))
		} else {
			note("braille: BRLTTY display.")
		}
	}
	if level, _ := notify.ParseLevel(o.Notify); level != notify.Off {
		ns := notify.NewSink(notify.NewDesktop(o.NotifyBell && !tui), notify.Config{Level: level, OnError: once(note, "Desktop notifications failed")})
		s.list = append(s.list, ns)
		s.closers = append(s.closers, ns.Close)
	}
	return s
}

func (s *sinks) openBraille(ctx context.Context, o braille.Options, pc announce.PaceConfig, note func(string)) error {
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := braille.Dial(dctx, o)
	if err != nil {
		return err
	}
	answers := make(chan string, 8)
	bs, err := braille.NewSink(dctx, c, braille.Config{OnError: once(note, "The braille display stopped"),
		Redial:      func(ctx context.Context) (*braille.Client, error) { return braille.Dial(ctx, o) }, // when BRLTTY restarts
		OnReconnect: func() { note("The braille display is back.") },
		OnAnswer: func(n int, accept bool) {
			word := "reject"
			if accept {
				word = "accept"
			}
			answers <- fmt.Sprintf("%s %d", word, n)
		}})
	if err != nil {
		c.Close()
		return err
	}
	s.answers = answers
	s.addPaced(pc, bs, nil)
	s.closers = append(s.closers, bs.Close, c.Close)
	return nil
}

// addPaced adds out behind a Pacer, so it is told no faster than it can be
// taken in; the Pacer stops before out is closed.
func (s *sinks) addPaced(pc announce.PaceConfig, out announce.Sink, onError func(error)) {
	pc.OnError = onError
	p := announce.NewPacer(pc, out)
	s.list = append(s.list, p)
	s.closers = append(s.closers, p.Close)
}

// withAnswers adds the braille display's answers to the typed commands in
// (standard input when in is nil), so they take the same path as typed ones.
func (s *sinks) withAnswers(in <-chan string, stdin io.Reader) <-chan string {
	if s.answers == nil {
		return in
	}
	if in == nil {
		in = readLines(stdin)
	}
	out := make(chan string)
	go func() {
		for {
			select {
			case line, ok := <-in:
				if !ok {
					in = nil
					continue
				}
				out <- line
			case a := <-s.answers:
				out <- a
			}
		}
	}()
	return out
}

// Close stops the outputs, in the order they were started.
func (s *sinks) Close() error {
	for _, c := range s.closers {
		c()
	}
	return nil
}

// once returns an error handler that tells the user about the first error
// only, from any goroutine, so a failing service makes one line, not a flood.
func once(note func(string), what string) func(error) {
	var o sync.Once
	return func(err error) {
		o.Do(func() { note(fmt.Sprintf("%s: %v. Other outputs go on.", what, err)) })
	}
}
