package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/internal/userdir"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/tui"
)

// tuiOptions are the flags of the opt-in debug view.
type tuiOptions struct {
	Enabled   bool
	AltScreen bool
	Theme     string
	Capacity  int
	KeyFile   string
	Clipboard string // auto, osc52 or file
}

func addTUIFlags(fs *flag.FlagSet, o *tuiOptions) {
	fs.BoolVar(&o.Enabled, "tui", false, "show the full-screen debug view instead of plain lines (see docs/tui.md)")
	fs.BoolVar(&o.AltScreen, "alt-screen", false, "with --tui, draw on the alternate screen (nothing is kept in the scrollback)")
	fs.StringVar(&o.Theme, "theme", "", "with --tui: color, high-contrast or none (default: none when NO_COLOR is set)")
	fs.IntVar(&o.Capacity, "tui-events", tui.DefaultCapacity, "with --tui, how many events the list keeps")
	fs.StringVar(&o.Clipboard, "tui-clipboard", "auto", "with --tui, where y copies an event: auto (the terminal's clipboard through OSC 52 when the terminal is known to allow it, else a file), osc52 or file")
	fs.StringVar(&o.KeyFile, "tui-keys", "", "with --tui, a key `FILE` remapping keys (default: aaep-term/tui-keys in the user config dir, when present)")
}

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
	t := o.TUI
	if !t.Enabled {
		return nil, nil
	}
	if err := o.checkTUI(); err != nil {
		return nil, err
	}
	theme, ok := tui.ParseTheme(t.Theme)
	if !ok {
		return nil, cliflag.Usagef("--theme must be color, high-contrast or none, not %q", t.Theme)
	}
	if t.Theme == "" && !o.IO.Color {
		theme = tui.ThemeNone
	}
	getenv := o.Sinks.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	keys, err := loadKeys(t.KeyFile, getenv)
	if err != nil {
		return nil, err
	}
	clip, err := clipboardFor(t.Clipboard, getenv)
	if err != nil {
		return nil, err
	}
	dir, _ := os.Getwd()
	p := tui.Start(tui.RunOptions{
		Options: tui.Options{
			Capacity:  t.Capacity,
			Theme:     theme,
			Keys:      keys,
			Endpoint:  endpoint,
			Transport: transportWords(endpoint),
			SaveDir:   dir,
			Now:       o.Now,
		},
		In:        o.IO.In,
		Out:       o.IO.Out,
		AltScreen: t.AltScreen,
		Copy:      clip,
	})
	return &tuiOutput{Program: p, errOut: o.IO.ErrOut}, nil
}

// clipboardFor decides where y copies to, as --tui-clipboard asks.
func clipboardFor(mode string, getenv func(string) string) (tui.Clipboard, error) {
	switch mode {
	case "auto", "":
		return tui.DetectClipboard(getenv, tui.TmuxOption), nil
	case "osc52":
		return tui.Clipboard{OSC52: true, Via: "OSC 52 (--tui-clipboard osc52)"}, nil
	case "file":
		return tui.Clipboard{Via: "--tui-clipboard file"}, nil
	}
	return tui.Clipboard{}, fmt.Errorf("--tui-clipboard must be auto, osc52 or file, not %q", mode)
}

// transportWords says in words how the listener reaches endpoint, as
// transport.Dial reads it.
func transportWords(endpoint string) string {
	switch transport.BindingOf(endpoint) {
	case transport.BindingSSE:
		return "SSE"
	case transport.BindingWebSocket:
		return "WebSocket"
	case transport.BindingGRPC:
		return "gRPC"
	case transport.BindingUnix:
		return "Unix socket"
	case transport.BindingStdio:
		return "standard input and output of"
	}
	if endpoint == "-" {
		return "standard input"
	}
	return "file"
}

// termsOf is what the TUI shows of honoured capabilities.
func termsOf(c protocol.Capabilities) tui.Terms {
	t := tui.Terms{
		Rate:      c.MaxEventsPerSecond,
		Verbosity: protocol.Sanitize(c.PreferredVerbosity),
		Languages: sanitized(c.Languages),
	}
	if f := c.EventFilters; f != nil {
		t.Include, t.Exclude = sanitized(f.Include), sanitized(f.Exclude)
	}
	return t
}

func sanitized(l []string) []string {
	out := make([]string, 0, len(l))
	for _, s := range l {
		if s = protocol.Name(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// loadKeys reads the key file named, or the user's default one (tui-keys
// in the config directory getenv leads to) when it exists.
func loadKeys(name string, getenv func(string) string) (*tui.KeyMap, error) {
	keys := tui.DefaultKeyMap()
	if name == "" {
		var err error
		if name, err = userdir.File(getenv, "tui-keys"); err != nil {
			return &keys, nil
		}
		if _, err := os.Stat(name); err != nil {
			return &keys, nil
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--tui-keys: %w", err)
	}
	defer f.Close()
	if err := keys.Remap(f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &keys, nil
}

// attach makes the TUI the listener's input and prompt source.
func (t *tuiOutput) attach(l *listener) {
	l.input = commands(t.Actions())
	t.pending = l.c.Pending
	t.terms = func() (*session.Enforcer, protocol.Capabilities) {
		terms := l.c.Terms()
		return terms.Enforcer, terms.Honored
	}
}

// commands hands the TUI's actions to the listener as the commands they
// are, in order; it closes when actions closes.
func commands(actions <-chan tui.Action) <-chan line.Command {
	out := make(chan line.Command)
	go func() {
		defer close(out)
		for a := range actions {
			out <- commandOf(a)
		}
	}()
	return out
}

// commandOf is the command a TUI action asks for: the typed value
// line.Parse gives the same command typed in line mode, built field by
// field, never read back from words. Only a line the user typed after the
// command key (ActionLine) is parsed, as the line it is.
func commandOf(a tui.Action) line.Command {
	switch a.Kind {
	case tui.ActionAccept:
		return line.Command{Verb: line.VerbAccept, Prompt: a.Prompt, Word: "accept"}
	case tui.ActionReject:
		return line.Command{Verb: line.VerbReject, Prompt: a.Prompt, Word: "reject"}
	case tui.ActionAnswer:
		return line.Command{Verb: line.VerbAnswer, Prompt: a.Prompt, Arg: a.Text, Word: "answer"}
	case tui.ActionSet:
		return line.Command{Verb: line.VerbSet, Word: a.Term, Arg: a.Text}
	case tui.ActionStop:
		return line.Command{Verb: line.VerbStop, Word: "stop"}
	case tui.ActionQuit:
		return line.Command{Verb: line.VerbQuit, Word: "quit"}
	case tui.ActionLine:
		return line.Parse(a.Text)
	}
	return line.Command{Verb: line.VerbEmpty} // no action: answers nothing
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
		ps := t.pending()
		prompts := make([]tui.Prompt, len(ps))
		for i, p := range ps {
			prompts[i] = tui.PromptOf(p)
		}
		t.SetPrompts(prompts)
	}
	if t.terms != nil {
		// The status line shows the terms of every acceptance, the first
		// and each renegotiation's.
		if enf, honored := t.terms(); enf != nil && enf != t.termsSeen {
			t.termsSeen = enf
			t.SetTerms(termsOf(honored))
		}
	}
	return t.Program.Flush()
}
