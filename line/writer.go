package line

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Writer prints announcements as plain lines on Out and diagnostics on Diag:
//
//	14:22:11 CRITICAL Banking Assistant: Confirmation needed, prompt 1: …
//
// Output is buffered; call Flush when no more input is waiting. Lines for
// critical announcements are flushed at once. Writer is not safe for
// concurrent use.
type Writer struct {
	// out is written the lines held in pend: a line is made where it
	// is held, not made aside and copied into a buffer of a bufio.Writer.
	out   io.Writer
	pend  []byte
	err   error     // the first error writing out, returned by every write after it
	diag  io.Writer // nil hides diagnostics
	loc   *time.Location
	color bool
	time  bool // each line starts with its time
	hints bool // a prompt's line says how to answer it

	// The last second stamped and the last agent named, with what was
	// written for them: a flood of lines repeats both, and the same input
	// gives the same bytes, so they are formatted and sanitized once.
	second    int64
	stamped   []byte
	agent     string
	agentLine []byte
}

// WriterOptions configure a Writer. The zero value writes local times, no colour.
type WriterOptions struct {
	// Location of the printed times; nil means time.Local.
	Location *time.Location
	// Color adds bold to the word CRITICAL (the word is always there). Only set
	// it when the terminal allows escape sequences.
	Color bool
	// NoTime leaves the time ("14:22:11 ") off the start of every line, for
	// people who do not want it read before each one.
	NoTime bool
	// Replay marks the lines of a recorded session: its prompts cannot be
	// answered, so no line says how to answer one.
	Replay bool
}

// NewWriter returns a Writer. diag may be nil to hide diagnostics.
func NewWriter(out, diag io.Writer, opts WriterOptions) *Writer {
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	return &Writer{out: out, pend: make([]byte, 0, pendSize), diag: diag, loc: loc, color: opts.Color, time: !opts.NoTime, hints: !opts.Replay}
}

// The lines a Writer holds: it writes them once they pass pendFull, so
// that a line of up to pendSize-pendFull bytes is made in the buffer's
// room; a longer one grows it, and a buffer grown past 2*pendSize is
// let go once written.
const (
	pendSize = 64 << 10
	pendFull = pendSize - 8<<10
)

// Announce writes one line for a.
func (w *Writer) Announce(a announce.Announcement) error { return w.AnnounceRef(&a) }

// AnnounceRef implements announce.RefSink: Announce without a copy of the
// announcement, which it neither keeps nor changes.
func (w *Writer) AnnounceRef(a *announce.Announcement) error {
	if w.err != nil {
		return fmt.Errorf("line: write announcement: %w", w.err)
	}
	b := w.stamp(w.pend, a.At)
	if a.Priority == announce.Critical {
		if w.color {
			b = append(b, "\x1b[1mCRITICAL\x1b[0m "...)
		} else {
			b = append(b, "CRITICAL "...)
		}
	}
	if a.Agent != "" {
		b = w.appendAgent(b, a.Agent)
	}
	if a.Theirs != nil {
		b = appendTheirs(b, a.Text, a.Theirs, a.RTL)
	} else {
		b = appendIsolated(b, a.Text, a.RTL) // all of it may be the producer's
	}
	if hint := answerHint(a); hint != "" && w.hints {
		b = append(b, ' ')
		b = append(b, hint...)
	}
	b = append(b, '\n')
	w.pend = b
	if a.Priority == announce.Critical || len(b) > pendFull {
		if err := w.write(); err != nil {
			return fmt.Errorf("line: write announcement: %w", err)
		}
	}
	return nil
}

// write writes the lines held to out. A write that fails keeps what it
// did not write, and its error: every later write returns it.
func (w *Writer) write() error {
	if w.err != nil {
		return w.err
	}
	if len(w.pend) == 0 {
		return nil
	}
	n, err := w.out.Write(w.pend)
	if err == nil && n < len(w.pend) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if n > 0 && n < len(w.pend) {
			w.pend = w.pend[:copy(w.pend, w.pend[n:])]
		}
		w.err = err
		return err
	}
	w.pend = w.pend[:0]
	if cap(w.pend) > 2*pendSize {
		w.pend = make([]byte, 0, pendSize)
	}
	return nil
}

// Diagnostic writes one line for d on the diagnostics stream.
func (w *Writer) Diagnostic(d session.Diagnostic) error {
	if w.diag == nil {
		return nil
	}
	// Keep the order of the two streams readable when they share a terminal.
	if err := w.Flush(); err != nil {
		return err
	}
	b := w.stamp(nil, d.At)
	b = append(b, "warning, "...)
	b = append(b, protocol.Name(d.Code)...)
	b = append(b, ": "...)
	b = appendOneLine(b, d.Message)
	b = append(b, '\n')
	if _, err := w.diag.Write(b); err != nil {
		return fmt.Errorf("line: write diagnostic: %w", err)
	}
	return nil
}

// Say writes a line of the listener's own (help, answers to commands).
func (w *Writer) Say(now time.Time, text string) error {
	if w.err != nil {
		return fmt.Errorf("line: write: %w", w.err)
	}
	b := w.stamp(w.pend, now)
	// A producer's words in a line of ours (protocol.Theirs) are isolated
	// when they are right to left: "Subscribed to <name>."
	plain, spans := protocol.SplitTheirs(text)
	b = appendTheirs(b, plain, spans, false)
	w.pend = append(b, '\n')
	if err := w.write(); err != nil {
		return fmt.Errorf("line: write: %w", err)
	}
	return nil
}

// appendAgent appends the agent's name, sanitized as a name and isolated
// when it is right to left, and ": ".
func (w *Writer) appendAgent(b []byte, agent string) []byte {
	if agent != w.agent || w.agentLine == nil {
		w.agentLine = append(appendIsolated(w.agentLine[:0], protocol.Name(agent), false), ": "...)
		w.agent = strings.Clone(agent) // kept: not the event's bytes, which it would keep alive
	}
	return append(b, w.agentLine...)
}

// stamp appends the time a line starts with, and its space; nothing with
// WriterOptions.NoTime.
func (w *Writer) stamp(b []byte, t time.Time) []byte {
	if !w.time {
		return b
	}
	// A second is written the same whatever its fraction: the clock time
	// of a Unix second does not change within it.
	if sec := t.Unix(); sec != w.second || w.stamped == nil {
		w.stamped = append(t.In(w.loc).AppendFormat(w.stamped[:0], "15:04:05"), ' ')
		w.second = sec
	}
	return append(b, w.stamped...)
}

// Flush writes buffered lines.
func (w *Writer) Flush() error {
	if err := w.write(); err != nil {
		return fmt.Errorf("line: flush: %w", err)
	}
	return nil
}

// answerHint tells the user how to answer a prompt that is waiting.
func answerHint(a *announce.Announcement) string {
	if a.Prompt == nil || a.Prompt.State != session.PromptPending {
		return ""
	}
	n := a.Prompt.Number
	switch a.Kind {
	case "confirmation", "prompt-reminder":
		if a.Event != nil && a.Event.Type == "aaep:agent.awaiting.clarification" {
			return fmt.Sprintf("To answer, type: answer %d, then your answer.", n)
		}
		return fmt.Sprintf("To answer, type: accept %d, or: reject %d.", n, n)
	case "clarification":
		return fmt.Sprintf("To answer, type: answer %d, then your answer.", n)
	}
	return ""
}

// appendOneLine appends s sanitized as one line (see protocol.Line): every
// string the writer prints passes here, so no text, ours or a producer's,
// can carry an escape sequence or start a line of its own.
func appendOneLine(b []byte, s string) []byte {
	if plainLine(s) {
		return append(b, s...)
	}
	one := protocol.Line(s)
	if one == s {
		return append(b, s...)
	}
	return append(b, strings.Join(strings.Fields(one), " ")...)
}
