package main

import (
	"context"
	"io"
	"os"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/tui"
)

// tuiOutput is the TUI as the listener's output. At every flush it copies
// the prompts waiting and the agents, on the listener's goroutine, so the
// TUI never reads the engine.
type tuiOutput struct {
	*tui.Program
	pending func() []tui.Prompt
	agents  func() []tui.Agent // nil in a run of one agent
	errOut  io.Writer
	// terms reads the negotiation of the agent the status line is about
	// (the only one, or the one heard with "only"): its enforcer, new at
	// every acceptance (nil before the first), and the capabilities the
	// producer honours; several when there is no such agent.
	terms     func() (enf *session.Enforcer, honored protocol.Capabilities, several bool)
	termsSeen *session.Enforcer
	several   bool // the status line says several agents
}

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

// attach makes the TUI the listener's input and prompt source: its
// actions are line.Commands, carried out by the listener's do, as typed
// ones are.
func (t *tuiOutput) attach(l *listener) {
	l.input = outputs.TUICommands(t.Actions())
	t.pending = func() []tui.Prompt {
		ps := l.pending()
		out := make([]tui.Prompt, len(ps))
		for i, p := range ps {
			if l.multi {
				out[i] = tui.PromptFrom(p.a.Tag(), p.Prompt)
			} else {
				out[i] = tui.PromptOf(p.Prompt)
			}
		}
		return out
	}
	t.agents = l.tuiAgents
	t.terms = func() (*session.Enforcer, protocol.Capabilities, bool) {
		a, all := l.only, l.agents()
		switch {
		case a != nil:
		case len(all) == 1:
			a = all[0]
		case len(all) > 1:
			return nil, protocol.Capabilities{}, true
		default: // agents are still to come (--local)
			return nil, protocol.Capabilities{}, false
		}
		terms := a.c.Terms()
		return terms.Enforcer, terms.Honored, false
	}
}

// tuiAgents is every agent as the TUI's agents view shows it; nil in a
// run of one agent without a label.
func (l *listener) tuiAgents() []tui.Agent {
	if !l.multi {
		return nil
	}
	waiting := map[*agent]int{}
	for _, p := range l.pending() {
		waiting[p.a]++
	}
	all := l.agents()
	as := make([]tui.Agent, len(all))
	for i, a := range all {
		as[i] = tui.Agent{Label: a.Tag(), Endpoint: a.Endpoint(), State: a.State(), Terms: a.TermsWords(),
			Pending: waiting[a], Events: a.Events(), Muted: l.quiet(a), Tasks: a.bridge != nil}
	}
	return as
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
		t.SetPrompts(t.pending())
	}
	if as := t.agents; as != nil {
		if list := as(); list != nil {
			t.SetAgents(list)
		}
	}
	if t.terms != nil {
		// The status line shows the terms of every acceptance, the first
		// and each renegotiation's, of the agent it is about.
		switch enf, honored, several := t.terms(); {
		case several:
			if !t.several {
				t.several, t.termsSeen = true, nil
				t.SetTerms(tui.Terms{Several: true})
			}
		case enf != nil && (enf != t.termsSeen || t.several):
			t.several, t.termsSeen = false, enf
			t.SetTerms(tui.TermsOf(honored))
		}
	}
	return t.Program.Flush()
}
