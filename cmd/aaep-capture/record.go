// record.go: one recording: dial, write every frame, stop when told.

package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/aaep-term/aaep-term/transport"
)

// version is this build's version, written into capture headers.
const version = "0.1.0"

// record runs one capture from start to end.
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

	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	var req []byte
	if !o.NoHandshake {
		req = subscriptionRequest(o.AutoReply)
	}
	layout := o.Layout
	if o.NoHandshake {
		layout = transport.LayoutLegacy
	}
	status := func(s transport.Status, detail string) {
		_ = w.Note(s.String(), detail, time.Now()) // a failed write shows on the next frame
	}
	conn, err := transport.Dial(ctx, o.Endpoint, transport.Options{SSE: transport.SSEOptions{
		Layout:              layout,
		Token:               o.Token,
		Header:              o.Header,
		HeaderTimeout:       o.ConnectTimeout,
		SubscriptionRequest: req,
		OnStatus:            status,
		OnDiagnostic: func(msg string) {
			prog.printf("aaep-capture: %s\n", protocol.Sanitize(msg))
		},
	}})
	if err != nil {
		return fmt.Errorf("connect to %s: %w", o.Endpoint, err)
	}
	defer conn.Close()
	file, closeOut, err := openOutput(o, prog)
	if err != nil {
		return err
	}
	defer closeOut()
	if err := out.release(file); err != nil {
		return fmt.Errorf("start %s: %w", o.Output, err)
	}

	pctx, stopProgress := context.WithCancel(ctx)
	progressDone := make(chan struct{})
	go func() { defer close(progressDone); prog.run(pctx) }()
	rec := &recorder{o: o, conn: conn, w: w, req: req, prog: prog, gate: policy.NewGate(nil, o.AutoReply)}
	n, why, err := rec.loop(ctx)
	stopProgress()
	<-progressDone
	filtered := ""
	if rec.filtered > 0 {
		filtered = fmt.Sprintf(" %d %s left out by --filter.", rec.filtered, prose.Plural(rec.filtered, "message was", "messages were"))
	}
	prog.printf("%s Recorded %d %s to %s in %s.%s\n", why, n, prose.Plural(n, "message", "messages"),
		outputName(o.Output), time.Since(start).Round(time.Millisecond), filtered)
	return err
}

// startMessage says what is recorded where, and whether prompts are answered.
func startMessage(o *options) string {
	redaction := "Secrets are redacted (--no-redact keeps them)."
	if o.NoRedact {
		redaction = "Secrets are kept as sent: keep this file private."
	}
	prompts := "Prompts are recorded but never answered."
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

// recorder is one recording's loop state.
type recorder struct {
	o        *options
	conn     transport.Conn
	w        *capture.Writer
	req      []byte
	prog     *progress
	subID    string
	filtered int
	gate     *policy.Gate // --auto-reply reject decides through the gate aaep-listen uses
}

// loop writes frames until the end; it returns how many messages were
// recorded and why it stopped.
func (r *recorder) loop(ctx context.Context) (int, string, error) {
	n := 0
	first := true
	for {
		f, err := r.conn.Recv(ctx)
		switch {
		case errors.Is(err, io.EOF):
			return n, "The producer ended the stream.", nil
		case err != nil && ctx.Err() != nil:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return n, "The --duration is over.", nil
			}
			return n, "Stopped.", nil
		case err != nil:
			return n, "The connection to the producer was lost and could not be restored; the capture ends here.", fmt.Errorf("receive: %w", err)
		}
		at := f.At
		if at.IsZero() {
			at = time.Now()
		}
		if first && r.req != nil {
			// The handshake was answered: record the request it answers,
			// at the time of the answer (the transport sent it while dialing).
			switch protocol.PeekType(f.Data) {
			case protocol.TypeSubscriptionAccepted, protocol.TypeSubscriptionRejected:
				if err := r.w.Write(capture.Out, r.req, at); err != nil {
					return n, "The file could not be written.", err
				}
			}
		}
		first = false
		if id := subscriptionID(f.Data); id != "" {
			r.subID = id
		}
		if !r.o.Filter.Keep(f.Data) {
			r.filtered++
			continue
		}
		if err := r.w.Write(capture.In, f.Data, at); err != nil {
			return n, "The file could not be written.", err
		}
		r.prog.recorded(f.Data)
		n++
		if r.o.AutoReply {
			if err := r.answer(ctx, f.Data); err != nil {
				return n, "The file could not be written.", err
			}
		}
		if r.o.MaxEvents > 0 && n >= r.o.MaxEvents {
			return n, fmt.Sprintf("Reached --max-events %d.", r.o.MaxEvents), nil
		}
	}
}

// answer rejects msg when it is a confirmation prompt still open, and
// records the reply once it was delivered.
func (r *recorder) answer(ctx context.Context, msg []byte) error {
	now := r.o.Now()
	reply, why := policyReply(r.gate, msg, r.subID, now)
	if why != "" {
		r.prog.printf("%s\n", why)
	}
	if reply == nil {
		return nil
	}
	if err := r.conn.Send(ctx, reply); err != nil {
		r.prog.printf("aaep-capture: the rejection could not be sent: %v\n", err)
		return nil
	}
	return r.w.Write(capture.Out, reply, time.Now())
}

// subscriptionRequest is the handshake of a recorder: it says who it is and
// that it answers no prompts.
func subscriptionRequest(canConfirm bool) []byte {
	req := map[string]any{
		"type":               protocol.TypeSubscriptionRequest,
		"aaep_version":       protocol.Version,
		"subscriber_id":      "aaep-term-capture",
		"subscriber_name":    "aaep-capture",
		"subscriber_version": version,
		"capabilities": map[string]any{
			"preferred_verbosity":          "detailed",
			"supports_confirmation_reply":  canConfirm,
			"supports_clarification_reply": false,
			"supported_conformance_levels": []int{1, 2, 3},
		},
	}
	b, _ := json.Marshal(req) // a map of plain values always marshals
	return b
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
