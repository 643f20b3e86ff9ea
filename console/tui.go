package console

import (
	"context"
	"io"

	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/tui"
)

// TUI is the TUI as the console's output. At every flush it copies
// the prompts waiting and the agents, on the listener's goroutine, so the
// TUI never reads the engine.
type TUI struct {
	*tui.Program
	pending func() []tui.Prompt
	agents  func() []tui.Agent // nil in a run of one agent
	errOut  io.Writer
	name    string // the command's, before its failures
	// terms reads the negotiation of the agent the status line is about
	// (the only one, or the one heard with "only"): its acceptance, new at
	// every acceptance (nil before the first), and the capabilities the
	// producer honours; several when there is no such agent.
	terms     func() (enf *subscriber.Acceptance, honored protocol.Capabilities, several bool)
	termsSeen *subscriber.Acceptance
	several   bool // the status line says several agents
}

// NewTUI is the view p as a console's output; its failures are said on
// errOut, after name (the command's).
func NewTUI(p *tui.Program, errOut io.Writer, name string) *TUI {
	return &TUI{Program: p, errOut: errOut, name: name}
}

// Attach makes the TUI the console's input and prompt source: its
// actions are command.Commands (tui.Program.Commands), carried out by
// the console's Do, as typed ones are.
func (t *TUI) Attach(l *Listener) {
	l.input = t.Commands()
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
	t.terms = func() (*subscriber.Acceptance, protocol.Capabilities, bool) {
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
		return terms.Acceptance, terms.Honored, false
	}
}

// tuiAgents is every agent as the TUI's agents view shows it; nil in a
// run of one agent without a label.
func (l *Listener) tuiAgents() []tui.Agent {
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
		as[i] = tui.Agent{Label: a.Tag(), Endpoint: transport.Shown(a.Endpoint()), State: a.State(), Terms: a.TermsWords(),
			Pending: waiting[a], Events: a.Events(), Muted: l.quiet(a), Tasks: a.takesTasks()}
	}
	return as
}

// Close ends the TUI; a failure is reported, as the listener is done by then.
func (t *TUI) Close() error {
	if err := t.Program.Close(); err != nil {
		textout.Fprintf(t.errOut, "%s: %v\n", t.name, err)
	}
	return nil
}

// End waits, once the stream has ended, for the user to quit the view (or
// for ctx to be done); a failure is reported.
func (t *TUI) End(ctx context.Context) {
	if err := t.Program.End(ctx); err != nil {
		textout.Fprintf(t.errOut, "%s: %v\n", t.name, err)
	}
}

// Flush implements Output.
func (t *TUI) Flush() error {
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
