// progress.go: the progress line on standard error, and every other message there.

package record

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/textout"
)

// ProgressMode says how progress is shown.
type ProgressMode int

// The ways progress is shown.
const (
	ProgressOff     ProgressMode = iota // standard error is no terminal, or --no-progress
	ProgressRewrite                     // one line, rewritten in place with carriage returns
	ProgressLines                       // an appended line now and then (TERM=dumb, ACCESSIBLE)
)

// Intervals between two progress reports.
const (
	rewriteEvery = time.Second
	linesEvery   = 30 * time.Second
	// maxSessionsCounted bounds the memory spent counting sessions.
	maxSessionsCounted = 1 << 16
)

// ProgressModeFor chooses the mode: nothing unless standard error is a
// terminal; appended lines rather than a rewritten one when the terminal
// is dumb or the user asked for accessible output.
func ProgressModeFor(errTTY, disabled bool, getenv func(string) string) ProgressMode {
	switch {
	case disabled || !errTTY:
		return ProgressOff
	case getenv("TERM") == "" || getenv("TERM") == "dumb" || getenv("ACCESSIBLE") != "":
		return ProgressLines
	}
	return ProgressRewrite
}

// progress counts what is recorded and reports it on w. All messages for
// standard error go through it, so a message never lands in the middle of
// the progress line. Safe for concurrent use.
type progress struct {
	mode  ProgressMode
	start time.Time

	events, bytes atomic.Int64
	sessions      map[string]struct{} // touched only by the recording goroutine
	nSessions     atomic.Int64

	mu    sync.Mutex // guards w and shown
	w     io.Writer
	shown int    // length of the progress line on screen, in rewrite mode
	last  string // the last report, in lines mode
}

func newProgress(w io.Writer, mode ProgressMode, start time.Time) *progress {
	return &progress{w: w, mode: mode, start: start, sessions: map[string]struct{}{}}
}

// printf writes a message on a line of its own.
func (p *progress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	textout.Fprintf(p.w, format, args...)
}

// clear removes the progress line from the screen; p.mu is held.
func (p *progress) clear() {
	if p.shown > 0 {
		textout.Fprintf(p.w, "\r%*s\r", p.shown, "") // the width is ours: the sanitizer folds blanks it is given
		p.shown = 0
	}
}

// counting returns w counting the bytes written through it.
func (p *progress) counting(w io.Writer) io.Writer { return countingWriter{w, &p.bytes} }

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// recorded counts one recorded message. It is called by the recording
// goroutine only.
func (p *progress) recorded(msg []byte) {
	p.events.Add(1)
	if p.mode == ProgressOff || len(p.sessions) >= maxSessionsCounted {
		return
	}
	var m struct {
		Session string `json:"session_id"`
	}
	if json.Unmarshal(msg, &m) == nil && m.Session != "" {
		if _, ok := p.sessions[m.Session]; !ok {
			p.sessions[m.Session] = struct{}{}
			p.nSessions.Store(int64(len(p.sessions)))
		}
	}
}

// line is the progress report at now.
func (p *progress) line(now time.Time) string {
	ev, sess := p.events.Load(), p.nSessions.Load()
	more := ""
	if sess >= maxSessionsCounted {
		more = " or more"
	}
	el := now.Sub(p.start)
	rate := 0.0
	if el > 0 {
		rate = float64(ev) / el.Seconds()
	}
	return fmt.Sprintf("Recording: %d %s, %d%s %s, %s, %.0f messages a second, %s.",
		ev, prose.Plural(int(ev), "message", "messages"), sess, more, prose.Plural(int(sess), "session", "sessions"),
		byteWords(p.bytes.Load()), rate, el.Round(time.Second))
}

// report shows the progress at now.
func (p *progress) report(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.line(now)
	switch p.mode {
	case ProgressRewrite:
		pad := max(p.shown-len(s), 0)
		textout.Fprintf(p.w, "\r%s%*s", s, pad, "")
		if pad > 0 {
			textout.Fprintf(p.w, "\r%s", s)
		}
		p.shown = len(s)
	case ProgressLines:
		if s != p.last {
			textout.Fprintf(p.w, "%s\n", s)
			p.last = s
		}
	}
}

// run reports until ctx is done; it does nothing when progress is off.
func (p *progress) run(ctx context.Context) {
	every := rewriteEvery
	switch p.mode {
	case ProgressOff:
		return
	case ProgressLines:
		every = linesEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			p.report(now)
		}
	}
}

func byteWords(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d %s", n, prose.Plural(int(n), "byte", "bytes"))
}
