package main

import (
	"context"
	"io"
	"os"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/tui"
)

// tuiOutput is the TUI as the listener's output. At every flush it copies
// the prompts waiting, on the listener's goroutine, so the TUI never reads
// the engine.
type tuiOutput struct {
	*tui.Program
	pending func() []*session.Prompt
	errOut  io.Writer
	// terms reads the negotiation: its enforcer, new at every acceptance
	// (nil before the first), and the capabilities the producer honours.
	terms     func() (*session.Enforcer, protocol.Capabilities)
	termsSeen *session.Enforcer
}

// checkTUI refuses --tui where it cannot run, as a usage error: parseFlags
// calls it, before anything starts, and startTUI again.
func (o *options) checkTUI() error {
	switch {
	case !o.TUI.Enabled:
		return nil
	case o.JSON:
		return cliflag.Usagef("--tui and --json cannot be combined: --json writes records for programs")
	case !o.IO.InTTY || !o.IO.OutTTY:
		return cliflag.Usagef("--tui needs a terminal on standard input and output; leave it out for plain lines")
	}
	return nil
}

// startTUI starts the debug view when --tui is given; it returns nil otherwise.
func startTUI(o *options, endpoint string) (*tuiOutput, error) {
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
	return &tuiOutput{Program: tui.Start(ro), errOut: o.IO.ErrOut}, nil
}

// attach makes the TUI the listener's input and prompt source.
func (t *tuiOutput) attach(l *listener) {
	l.input = t.Commands()
	t.pending = func() []*session.Prompt { return prompts(l.pending()) }
	t.terms = func() (*session.Enforcer, protocol.Capabilities) {
		if len(l.agents) == 0 {
			return nil, protocol.Capabilities{}
		}
		terms := l.agents[0].c.Terms() // the TUI's status line: the first agent's (w-tui shows every agent's)
		return terms.Enforcer, terms.Honored
	}
}

// Close ends the TUI; a failure is reported, as the listener is done by then.
func (t *tuiOutput) Close() error {
	if err := t.Program.Close(); err != nil {
		textout.Fprintf(t.errOut, "aaep-listen: %v\n", err)
	}
	return nil
}

// End waits, once the stream has ended, for the user to quit the view (or
// for ctx to be done); a failure is reported.
func (t *tuiOutput) End(ctx context.Context) {
	if err := t.Program.End(ctx); err != nil {
		textout.Fprintf(t.errOut, "aaep-listen: %v\n", err)
	}
}

// Flush implements output.
func (t *tuiOutput) Flush() error {
	if t.pending != nil {
		t.ShowPrompts(t.pending())
	}
	if t.terms != nil {
		// The status line shows the terms of every acceptance, the first
		// and each renegotiation's.
		if enf, honored := t.terms(); enf != nil && enf != t.termsSeen {
			t.termsSeen = enf
			t.SetTerms(tui.TermsOf(honored))
		}
	}
	return t.Program.Flush()
}
