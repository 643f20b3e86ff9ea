package main

// linetime.go: whether play and export --format text start each line with
// its time, read as aaep-listen reads it: --no-time, or "timestamps": false
// in the announcement settings file (--config, else the user's own).

import (
	"flag"
	"fmt"

	"github.com/aaep-term/aaep-term/announce"
)

// timeFlags are --no-time and --config of a command that writes lines.
type timeFlags struct {
	noTime bool
	config string
}

// addTimeFlags defines --no-time and --config on fs.
func addTimeFlags(fs *flag.FlagSet) *timeFlags {
	tf := &timeFlags{}
	fs.BoolVar(&tf.noTime, "no-time", false, "do not start each line with its time (also \"timestamps\": false in the --config file)")
	fs.StringVar(&tf.config, "config", "", "announcement settings `FILE`, read for its \"timestamps\" (default aaep-term/"+announce.SettingsFile+" in your config directory, when present)")
	return tf
}

// off reports whether lines go without their time: --no-time, or
// "timestamps": false in the settings file.
func (tf *timeFlags) off(getenv func(string) string) (bool, error) {
	s, err := announce.LoadUserSettings(tf.config, getenv)
	if err != nil {
		return false, fmt.Errorf("--config: %w", err)
	}
	return tf.noTime || s.Timestamps != nil && !*s.Timestamps, nil
}
