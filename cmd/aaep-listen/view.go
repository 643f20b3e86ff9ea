package main

// view.go: --tui, the debug view as the console's output (console.TUI).

import (
	"os"

	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/tui"
)

// checkTUI refuses --tui where it cannot run, as a usage error: parseFlags
// calls it, before anything starts, and startTUI again.
func (o *options) checkTUI() error {
	switch err := o.TUI.Check(); {
	case !o.TUI.Enabled:
		return nil
	case err != nil:
		return cliflag.Usage(err)
	case o.JSON:
		return cliflag.Usagef("--tui and --json cannot be combined: --json writes records for programs")
	case !o.IO.InTTY || !o.IO.OutTTY:
		return cliflag.Usagef("--tui needs a terminal on standard input and output; leave it out for plain lines")
	}
	return nil
}

// startTUI starts the debug view when --tui is given; it returns nil otherwise.
func startTUI(o *options, endpoint string) (*console.TUI, error) {
	if !o.TUI.Enabled {
		return nil, nil
	}
	if err := o.checkTUI(); err != nil {
		return nil, err
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ro, err := o.TUI.RunOptions(o.IO.Color, getenv)
	if err != nil {
		return nil, err
	}
	ro.Endpoint, ro.Transport, ro.Now = endpoint, transport.Words(endpoint), o.Now
	ro.SaveDir, _ = os.Getwd()
	ro.In, ro.Out = o.IO.In, o.IO.Out
	return console.NewTUI(tui.Start(ro), o.IO.ErrOut, "aaep-listen"), nil
}
