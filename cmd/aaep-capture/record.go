// record.go: one recording: subscribe, write every frame, stop when told.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/safefile"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// version is this build's version, written into capture headers.
const version = "0.1.0"

// autoReplyBy is the decided_by of the replies --auto-reply reject sends.
const autoReplyBy = "policy:aaep-capture-auto-reply"

// record runs one capture from start to end: it subscribes through the
// same client aaep-listen uses (subscriber), and writes every frame that
// client receives or sends, as its tap tells them, with their times.
func record(ctx context.Context, o *options) error {
	if o.Token == "" {
		o.Token = os.Getenv("AAEP_TOKEN")
	}
	start := o.Now()
	prog := newProgress(o.IO.ErrOut, o.Progress, start)
	// The file is opened only once the producer answered: an unreachable
	// endpoint leaves no stub behind, nor truncates an earlier file.
	out := &heldOutput{}
	var red *capture.Redactor
	if !o.NoRedact {
		red = capture.NewRedactor()
	}
	w, err := capture.NewWriter(prog.counting(out), capture.Header{
		Endpoint:   o.Endpoint,
		Transport:  transport.BindingOf(o.Endpoint).String(),
		Subscriber: "aaep-capture",
		Tool:       "aaep-capture " + version,
	}, start, capture.WriterOptions{JSONL: o.JSONL, Redactor: red})
	if err != nil {
		return fmt.Errorf("start %s: %w", o.Output, err)
	}
	prog.printf("%s\n", startMessage(o))

	runCtx := ctx
	if o.Duration > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	rec := &recorder{o: o, w: w, prog: prog, stop: make(chan string, 1)}
	c, err := subscriber.Dial(runCtx, o.Endpoint, rec.config())
	if err != nil {
		return err // it names the endpoint
	}
	file, closeOut, err := openOutput(o, prog)
	if err != nil {
		c.Close()
		return err
	}
	defer closeOut()
	if err := out.release(file); err != nil {
		c.Close()
		return fmt.Errorf("start %s: %w", o.Output, err)
	}

	pctx, stopProgress := context.WithCancel(ctx)
	progressDone := make(chan struct{})
	go func() { defer close(progressDone); prog.run(pctx) }()
	go func() {
		select {
		case why := <-rec.stop: // --max-events, or the file failed
			c.CloseBecause(why)
		case <-c.Done():
		}
	}()
	end := rec.follow(c)
	stopProgress()
	<-progressDone
	why, err := rec.ending(end, ctx, runCtx)
	filtered := ""
	if rec.filtered > 0 {
		filtered = fmt.Sprintf(" %d %s left out by --filter.", rec.filtered, prose.Plural(rec.filtered, "message was", "messages were"))
	}
	rec.say(fmt.Sprintf("%s Recorded %d %s to %s in %s.%s", why, rec.n, prose.Plural(rec.n, "message", "messages"),
		outputName(o.Output), time.Since(start).Round(time.Millisecond), filtered))
	return err
}

// startMessage says what is recorded where, and whether prompts are answered.
func startMessage(o *options) string {
	redaction := "Secrets are redacted (--no-redact keeps them)."
	if o.NoRedact {
		redaction = "Secrets are kept as sent: keep this file private."
	}
	prompts := "Prompts are recorded but never answered: the producer is told so, and applies each prompt's default at once."
	if o.AutoReply {
		prompts = "Prompts are recorded; every confirmation is rejected (--auto-reply reject), questions are never answered."
	}
	msg := fmt.Sprintf("Recording %s to %s. %s %s", o.Endpoint, outputName(o.Output), prompts, redaction)
	if !o.Filter.Empty() {
		msg += fmt.Sprintf(" Only event types matching %q are kept, and every critical event.", o.Filter.String())
	}
	if o.RotateSize > 0 {
		msg += fmt.Sprintf(" A new file is started before one grows past %d bytes.", o.RotateSize)
	}
	return msg
}

// recorder is one recording: the client's tap writes the file on the
// client's goroutine, in order; follow reads the client's updates.
type recorder struct {
	o    *options
	w    *capture.Writer
	prog *progress
	// stop asks for the subscription to be closed, with the End's words.
	stop chan string

	// Written by the tap on the client's goroutine; read once it ended.
	n        int   // messages received and recorded
	filtered int   // messages left out by --filter
	full     bool  // --max-events were recorded: later ones are not
	err      error // the file could not be written: nothing more is
}

// config is the client's configuration: who records, with honest
// capabilities (it can answer confirmations only with --auto-reply, and
// questions never), and the one gate that decides for it.
func (r *recorder) config() subscriber.Config {
	o := r.o
	layout := o.Layout
	if o.NoHandshake {
		layout = transport.LayoutLegacy
	}
	return subscriber.Config{
		Identity: session.Identity{ID: "aaep-term-capture", Name: "aaep-capture", Version: version},
		Terms:    session.Terms{Verbosity: "detailed", CanConfirm: o.AutoReply},
		Transport: transport.Options{SSE: transport.SSEOptions{
			Layout:        layout,
			Token:         o.Token,
			Header:        o.Header,
			HeaderTimeout: o.ConnectTimeout,
		}},
		// The manifest is checked and said, as aaep-listen does, with the
		// same credentials; nothing requires it.
		Manifest:    subscriber.ManifestConfig{Token: o.Token, Header: o.Header, Now: o.Now},
		Gate:        policy.NewGate(nil, o.AutoReply),
		AutoReplyBy: autoReplyBy,
		Now:         o.Now,
		Passive:     o.NoHandshake,
		Tap:         r.tap,
		TapStatus:   r.note,
	}
}

// tap writes one frame the client received or sent.
func (r *recorder) tap(dir subscriber.Direction, data []byte, at time.Time) {
	if r.err != nil {
		return
	}
	if at.IsZero() {
		at = time.Now()
	}
	if dir == subscriber.Sent {
		// Everything sent is recorded, up to the close.
		r.write(capture.Out, data, at)
		return
	}
	if r.full {
		return
	}
	if !r.o.Filter.Keep(data) {
		r.filtered++
		return
	}
	if !r.write(capture.In, data, at) {
		return
	}
	r.prog.recorded(data)
	r.n++
	if r.o.MaxEvents > 0 && r.n >= r.o.MaxEvents {
		r.full = true
		r.stopWith(fmt.Sprintf("Reached --max-events %d.", r.o.MaxEvents))
	}
}

// note records a transport status (connecting, connected, reconnecting,
// closed) in its place among the frames.
func (r *recorder) note(s transport.Status, detail string, at time.Time) {
	if r.err == nil {
		_ = r.w.Note(s.String(), detail, at) // a failed write shows on the next frame
	}
}

// write writes one record; when it fails nothing more is written and the
// subscription is closed.
func (r *recorder) write(dir capture.Dir, data []byte, at time.Time) bool {
	if err := r.w.Write(dir, data, at); err != nil {
		r.err = err
		r.stopWith("The file could not be written.")
		return false
	}
	return true
}

// stopWith asks once for the subscription to be closed, saying why.
func (r *recorder) stopWith(why string) {
	select {
	case r.stop <- why:
	default:
	}
}

// follow tells on standard error what the user must know of the
// connection as it happens (lost, back, refused, retried), until the End,
// which it returns. It takes the updates a batch at a time: most are
// deliveries a recorder has nothing to say about.
func (r *recorder) follow(c *subscriber.Client) subscriber.Update {
	for {
		batch, err := c.NextBatch(context.Background(), 0)
		if err != nil { // io.EOF: the End was taken
			return subscriber.Update{Kind: subscriber.KindEnd}
		}
		for _, u := range batch {
			switch u.Kind {
			case subscriber.KindEnd:
				return u
			case subscriber.KindStatus:
				if u.Status != subscriber.StatusDecision { // the reply says it
					r.say(u.Text)
				}
			case subscriber.KindDiagnostic:
				if u.Diagnostic.Code == "transport" {
					r.say("aaep-capture: " + u.Diagnostic.Message)
				}
			case subscriber.KindReply:
				r.say(replyWords(u.Reply))
			}
		}
	}
}

// say writes text on standard error as a line of its own, sanitized as
// one line (textout), without the marks around the producer's words.
func (r *recorder) say(text string) {
	plain, _ := protocol.SplitTheirs(text)
	r.prog.printf("%s\n", plain)
}

// replyWords says what became of a reply the gate decided.
func replyWords(s *subscriber.SentReply) string {
	action := ""
	if s.Prompt.Event != nil {
		action = protocol.Theirs(s.Prompt.Event.Action.Line())
	}
	switch {
	case s.Err != nil:
		return "aaep-capture: the rejection could not be sent: " + s.Err.Error()
	case s.SettledElsewhere:
		return "Another subscriber answered first: " + action
	}
	return "Your --auto-reply policy rejected: " + action
}

// ending says why the recording ended, and the error to exit with: ctx is
// the run's, runCtx the same bounded by --duration.
func (r *recorder) ending(end subscriber.Update, ctx, runCtx context.Context) (string, error) {
	var rej *subscriber.RejectedError
	switch {
	case r.err != nil:
		return "The file could not be written.", r.err
	case r.full: // whatever came after
		return fmt.Sprintf("Reached --max-events %d.", r.o.MaxEvents), nil
	case errors.As(end.Err, &rej):
		return "The producer refused the subscription, so nothing more will arrive.", errors.New(rejectionWords(rej))
	case end.Err != nil:
		return end.Text, end.Err
	case ctx.Err() == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) && end.Text == stopped:
		return "The --duration is over.", nil
	}
	return end.Text, nil
}

// stopped is the client's End when the context it runs under is done.
const stopped = "Stopped."

// rejectionWords names a refusal's code, and the wait it asked for: the
// status line before it said the code and the producer's message in words.
func rejectionWords(e *subscriber.RejectedError) string {
	msg := fmt.Sprintf("the producer refused the subscription (reason code %q)", protocol.Name(e.Code))
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf("; it asked to be tried again after %s", e.RetryAfter)
	}
	return msg + "."
}

// heldOutput holds what is written to it until release gives it the real
// output, then passes writes through. Each held write is replayed as a write
// of its own, since a rotating file expects whole lines.
type heldOutput struct {
	mu   sync.Mutex
	held [][]byte
	w    io.Writer
}

func (h *heldOutput) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.w != nil {
		return h.w.Write(p)
	}
	h.held = append(h.held, bytes.Clone(p))
	return len(p), nil
}

// release writes what was held to w and sends later writes there.
func (h *heldOutput) release(w io.Writer) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.held {
		if _, err := w.Write(p); err != nil {
			return err
		}
	}
	h.held, h.w = nil, w
	return nil
}

// openOutput opens the file to write (or the first of a --rotate-size
// series); captures may hold secrets, so it is readable by its owner only,
// and never written through a symbolic link (see safefile).
func openOutput(o *options, prog *progress) (io.Writer, func(), error) {
	if o.Output == "-" {
		return o.IO.Out, func() {}, nil
	}
	var f io.WriteCloser
	if o.RotateSize > 0 {
		rf, err := newRotatingFile(o.Output, o.RotateSize, !o.JSONL)
		if err != nil {
			return nil, nil, err
		}
		rf.onRotate = func(name string) { prog.printf("Continuing in %s.\n", name) }
		f = rf
	} else {
		var err error
		if f, err = safefile.Create(o.Output); err != nil {
			return nil, nil, fmt.Errorf("open the output: %w", err)
		}
	}
	return f, func() {
		if err := f.Close(); err != nil {
			prog.printf("aaep-capture: close %s: %v\n", o.Output, err)
		}
	}, nil
}

func outputName(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}
