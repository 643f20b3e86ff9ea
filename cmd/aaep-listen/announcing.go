// announcing.go settles how announcements are worded and paced: the
// announcement settings file (--config), the user's languages, pace and
// cognitive load, and the "stop" command.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/userdir"
)

// settingsFile is the announcement settings file in the config directory,
// read when --config is not given and it exists.
const settingsFile = "announce.json"

// loadSettings reads the file --config names, or the default one when it
// exists. It is called by sinkOptions.check once flags are parsed.
func (o *sinkOptions) loadSettings() error {
	path := o.Config
	if path == "" {
		getenv := o.Getenv
		if getenv == nil {
			return nil
		}
		var err error
		if path, err = userdir.File(getenv, settingsFile); err != nil {
			return nil // no config directory, so no default file
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	s, err := announce.LoadSettings(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	o.settings = s
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	if fs != nil {
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	}
	return set
}

// announceConfig is the announcer's configuration: --verbosity (or the
// settings file's, when the flag was not given), the per-type overrides and
// the user's languages.
func (o *options) announceConfig(onError func(error)) announce.Config {
	v := o.Verbosity
	if s := o.Sinks.settings.Verbosity; s != "" && !flagSet(o.Sinks.fs, "verbosity") {
		v = s
	}
	return announce.Config{Verbosity: v, OnError: onError, Types: o.Sinks.settings.Types, Languages: o.Terms.Languages}
}

// noTime says whether lines go without their time: --no-time, or
// "timestamps": false in the settings file.
func (o *options) noTime() bool {
	ts := o.Sinks.settings.Timestamps
	return o.NoTime || ts != nil && !*ts
}

// paced returns the sink options with the pace of speech and braille
// settled: --pace-wpm, else the settings file's, else 180 words a minute;
// --cognitive-load low leaves background announcements out.
func (o *options) paced() sinkOptions {
	so := o.Sinks
	pc := so.settings.Pace(announce.PaceConfig{})
	if o.Terms.PaceWPM > 0 {
		pc.WPM = o.Terms.PaceWPM
	}
	pc.DropBackground = o.Terms.CognitiveLoad == "low"
	so.pace = pc
	return so
}

// silence carries out "stop": speech and braille drop what waits and stop
// what is being said, prompts and errors excepted. speech-dispatcher answers
// only once its voice has stopped, which may take seconds, so the listener
// goes on meanwhile and the outcome comes as a status line.
func (l *listener) silence() {
	l.silencing.Add(1)
	go func() {
		defer l.silencing.Done()
		l.notes.add(silenceWords(l.ann.Silence()))
	}()
}

// silenceWords says how a stop went: n announcements dropped, ok when any
// sink could be silenced.
func silenceWords(n int, ok bool, err error) string {
	switch {
	case !ok:
		return "Nothing to stop: speech and braille are off."
	case err != nil:
		return fmt.Sprintf("Could not stop the speech: %v.", err)
	case n == 1:
		return "Stopped; 1 announcement was not spoken. Everything is still in the log."
	}
	return fmt.Sprintf("Stopped; %d announcements were not spoken. Everything is still in the log.", n)
}
