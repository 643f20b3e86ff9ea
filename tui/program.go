package tui

import (
	"context"
	"fmt"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// RunOptions configure a running TUI.
type RunOptions struct {
	Options
	In        io.Reader
	Out       io.Writer
	AltScreen bool // full screen; history is then not kept in the scrollback
	// Copy says whether y may use the terminal's clipboard (DetectClipboard).
	Copy Clipboard
}

// Program is a running TUI. Its Sink methods are called from the listener's
// goroutine; what the user decides comes back, typed, on Actions.
type Program struct {
	p       *tea.Program
	in      *inbox
	buf     []Item
	actions chan Action
	done    chan error
}

// Start runs the TUI on o.In and o.Out until Close.
func Start(o RunOptions) *Program {
	pr := &Program{actions: make(chan Action, 16), done: make(chan error, 1)}
	o.Act = func(a Action) bool {
		select {
		case pr.actions <- a:
			return true
		default: // the listener is far behind
			return false
		}
	}
	o.History = !o.AltScreen
	if o.Renderer == nil {
		o.Renderer = lipgloss.NewRenderer(o.Out)
	}
	cur := &cursorPos{}
	out := newCursorWriter(o.Out, cur)
	o.ClipboardVia = o.Copy.Via
	if o.Copy.OSC52 {
		o.Clipboard = func(s string) { out.osc52(s) }
	}
	m := New(o.Options)
	m.cur = cur
	pr.in = m.in
	opts := []tea.ProgramOption{
		tea.WithInput(o.In),
		tea.WithOutput(out),
		tea.WithoutSignalHandler(),
	}
	if o.AltScreen {
		opts = append(opts, tea.WithAltScreen())
	}
	pr.p = tea.NewProgram(m, opts...)
	go func() {
		final, err := pr.p.Run()
		if fm, ok := final.(*Model); ok && o.AltScreen && fm.message != "" {
			// The alternate screen is gone: leave its last words on the normal one.
			textout.Fprintf(o.Out, "%s\n", fm.message)
		}
		select { // the user may have forced the TUI closed: stop listening too
		case pr.actions <- Action{Kind: ActionQuit}:
		default:
		}
		close(pr.actions)
		pr.done <- err
	}()
	return pr
}

// Actions delivers what the user decides, typed: accept or reject a
// prompt, answer a question, change a term, quit. It is closed when the
// TUI ends.
func (pr *Program) Actions() <-chan Action { return pr.actions }

// Announce implements announce.Sink.
func (pr *Program) Announce(a announce.Announcement) error {
	pr.buf = append(pr.buf, ItemFromAnnouncement(a))
	return nil
}

// Diagnostic implements announce.DiagnosticSink.
func (pr *Program) Diagnostic(d session.Diagnostic) error {
	pr.buf = append(pr.buf, ItemFromDiagnostic(d))
	return nil
}

// Say shows a message from the listener itself. The marks around a
// producer's words in it (protocol.Theirs, for line mode to isolate) are
// dropped; the words stay.
func (pr *Program) Say(now time.Time, text string) error {
	return pr.SayFor(now, "", text)
}

// SayFor is Say for a message about one agent ("Connection lost;
// reconnecting"): the list shows it in that agent's row, by its label,
// and the agent filter treats it as the agent's.
func (pr *Program) SayFor(now time.Time, agent, text string) error {
	plain, _ := protocol.SplitTheirs(text)
	pr.buf = append(pr.buf, Item{At: now, Priority: announce.Normal, Kind: "status", Agent: agent, Text: plain})
	return nil
}

// SetPrompts replaces the prompts shown as waiting; it takes effect at Flush.
func (pr *Program) SetPrompts(ps []Prompt) {
	pr.in.mu.Lock()
	pr.in.prompts, pr.in.promptsSet = ps, true
	pr.in.mu.Unlock()
}

// Flush hands what was announced since the last Flush to the TUI. Batches
// that arrive while the TUI is drawing are merged: one update per frame.
func (pr *Program) Flush() error {
	pr.in.mu.Lock()
	pr.in.items = append(pr.in.items, pr.buf...)
	wake := !pr.in.woke && (len(pr.in.items) > 0 || pr.in.promptsSet || pr.in.termsSet || pr.in.agentsSet)
	if wake {
		pr.in.woke = true
	}
	pr.in.mu.Unlock()
	clear(pr.buf)
	pr.buf = pr.buf[:0]
	if wake {
		go pr.p.Send(inboxMsg{})
	}
	return nil
}

// Close shows what is left, ends the TUI and waits for it to restore the terminal.
func (pr *Program) Close() error {
	_ = pr.Flush()
	pr.p.Send(closeMsg{})
	return pr.wait()
}

// End is Close for a stream that ended by itself: the view shows what is
// left, says on its status line that the stream has ended, and stays open
// until the user quits, so what arrived last can still be read, browsed and
// copied. When the user had already asked to quit it ends at once; when ctx
// is done first (an interrupt) it ends then.
func (pr *Program) End(ctx context.Context) error {
	_ = pr.Flush()
	pr.p.Send(endMsg{})
	select {
	case err := <-pr.done:
		pr.done <- err
	case <-ctx.Done():
		pr.p.Send(closeMsg{})
	}
	return pr.wait()
}

// wait waits for the TUI to end and restore the terminal.
func (pr *Program) wait() error {
	if err := <-pr.done; err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}
