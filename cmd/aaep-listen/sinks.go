package main

import (
	"context"
	"flag"
	"io"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/notify"
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
	if err := (outputs.Options{Speech: o.Speech, Braille: o.Braille}).Check(); err != nil {
		return err
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
	answers <-chan string // "accept N" / "reject N" from the braille display; nil without one
}

// openSinks starts the outputs o asks for: speech and braille (shared with
// aaep-replay play in internal/outputs) and desktop notifications. A
// missing service is told in one line through note and the others go on.
func openSinks(ctx context.Context, o sinkOptions, tui bool, note func(string)) *sinks {
	out := outputs.Open(ctx, outputs.Options{
		Speech: o.Speech, Braille: o.Braille, BrlAPIHost: o.BrlAPIHost,
		ClientName: "user:aaep-listen:main", Pace: o.pace, Getenv: o.Getenv,
	}, note)
	s := &sinks{list: out.List, answers: out.Answers, closers: []func() error{out.Close}}
	if level, _ := notify.ParseLevel(o.Notify); level != notify.Off {
		ns := notify.NewSink(notify.NewDesktop(o.NotifyBell && !tui), notify.Config{Level: level, OnError: outputs.Once(note, "Desktop notifications failed")})
		s.list = append(s.list, ns)
		s.closers = append(s.closers, ns.Close)
	}
	return s
}

// withAnswers adds the braille display's answers to the typed commands in
// (standard input when in is nil), so they take the same path as typed ones.
func (s *sinks) withAnswers(in <-chan line.Command, stdin io.Reader) <-chan line.Command {
	if s.answers == nil {
		return in
	}
	if in == nil {
		in = parsed(readLines(stdin))
	}
	out := make(chan line.Command)
	go func() {
		for {
			select {
			case c, ok := <-in:
				if !ok {
					in = nil
					continue
				}
				out <- c
			case a := <-s.answers:
				out <- line.Parse(a)
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
