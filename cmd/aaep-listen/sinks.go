package main

// sinks.go: the outputs besides the terminal (speech, braille, desktop
// notifications: internal/outputs) and how announcements are worded and
// paced: the settings file (--config), the user's languages, pace and
// cognitive load.

import (
	"flag"
	"fmt"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/outputs"
)

// sinkOptions are the output flags and the announcement settings file.
type sinkOptions struct {
	outputs.Options        // --speech, --braille, --brlapi-host, --notify, --notify-bell
	Config          string // --config: the announcement settings file

	fs       *flag.FlagSet     // to tell flags given from defaults
	settings announce.Settings // read by check
}

// addSinkFlags defines the output flags and --config on fs.
func addSinkFlags(fs *flag.FlagSet, o *sinkOptions, getenv func(string) string) {
	o.Getenv, o.fs, o.ClientName = getenv, fs, "user:aaep-listen:main"
	outputs.AddFlags(fs, &o.Options)
	outputs.AddNotifyFlags(fs, &o.Options)
	fs.StringVar(&o.Config, "config", "", "announcement settings `FILE` (JSON: verbosity, pace, per-type overrides; default aaep-term/"+announce.SettingsFile+" in your config directory, when present)")
}

// check refuses unknown output flag values before anything starts, and
// reads the announcement settings file.
func (o *sinkOptions) check() error {
	if err := o.Options.Check(); err != nil {
		return err
	}
	s, err := announce.LoadUserSettings(o.Config, o.Getenv)
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

// fixedVerbosity reports whether the settings file chose the verbosity
// (--verbosity was not given): "set verbosity" leaves it for agents that come later.
func (o *options) fixedVerbosity() bool {
	return o.Sinks.settings.Verbosity != "" && !flagSet(o.Sinks.fs, "verbosity")
}

// noTime says whether lines go without their time: --no-time, or
// "timestamps": false in the settings file.
func (o *options) noTime() bool {
	ts := o.Sinks.settings.Timestamps
	return o.NoTime || ts != nil && !*ts
}

// outputs are the outputs to open, with the pace of speech and braille
// settled: --pace-wpm, else the settings file's, else 180 words a minute;
// --cognitive-load low leaves background announcements out. The bell never
// rings under the TUI.
func (o *options) outputs(tui bool) outputs.Options {
	so := o.Sinks.Options
	so.Pace = o.Sinks.settings.Pace(announce.PaceConfig{})
	if o.Terms.PaceWPM > 0 {
		so.Pace.WPM = o.Terms.PaceWPM
	}
	so.Pace.DropBackground = o.Terms.CognitiveLoad == "low"
	so.NotifyBell = so.NotifyBell && !tui
	return so
}
