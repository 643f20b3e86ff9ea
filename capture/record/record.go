// record.go: one recording: subscribe, write every frame, stop when told.

package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/acp"
	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/safefile"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// Version is this build's version, written into capture headers.
const Version = "0.1.0"

// autoReplyBy is the decided_by of the replies --auto-reply reject sends.
const autoReplyBy = "policy:aaep-capture-auto-reply"

// Options are what one recording records, where, and how.
type Options struct {
	// Agents are the endpoints to record, each with its label if given
	// (LABEL=ENDPOINT); several go into one capture, one connection each.
	Agents      []agentspec.Spec
	Output      string    // file path, or "-" for Out
	Out         io.Writer // standard output
	Err         io.Writer // standard error: progress and every message
	JSONL       bool
	NoRedact    bool
	Duration    time.Duration // 0: until the stream ends or ctx is done
	MaxEvents   int           // 0: no limit
	NoHandshake bool
	// Transport, Token and Header are how the producer is reached: its
	// transport options, bearer token and extra HTTP headers.
	Transport  transport.Options
	Token      string
	Header     http.Header
	Filter     capture.TypeFilter // --filter
	RotateSize int64              // --rotate-size in bytes; 0: one file
	AutoReply  bool               // --auto-reply reject
	Progress   ProgressMode
	ACPRaw     string // --acp-raw: the file the raw ACP lines of acp: agents go to
	Now        func() time.Time
	// Hint, when not nil, says what the user may do about an endpoint's
	// error ("" when nothing); it is said after the error.
	Hint func(error) string
}

// Run runs one capture from start to end: it subscribes to every
// endpoint through the same client aaep-listen uses (subscriber), one
// client each, and one goroutine writes every frame those clients receive
// or send, as their taps tell them, with their times, in the order they
// reach it.
func Run(ctx context.Context, o *Options) error {
	start := o.Now()
	prog := newProgress(o.Err, o.Progress, start)
	// The file is opened only once a producer answered: unreachable
	// endpoints leave no stub behind, nor truncate an earlier file.
	out := &heldOutput{}
	var red *capture.Redactor
	if !o.NoRedact {
		red = capture.NewRedactor()
	}
	agents := newAgents(o.Agents)
	w, err := capture.NewWriter(prog.counting(out), header(o, agents), start, capture.WriterOptions{JSONL: o.JSONL, Redactor: red})
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
	rec := &recorder{o: o, w: w, prog: prog, stop: make(chan string, 1), frames: make(chan frame, 256), many: len(agents) > 1}
	written := make(chan struct{})
	go func() { defer close(written); rec.writeAll() }()
	pctx, stopProgress := context.WithCancel(ctx)
	progressDone := make(chan struct{})
	go func() { defer close(progressDone); prog.run(pctx) }()

	var live closers
	allEnded := make(chan struct{})
	go func() {
		select {
		case why := <-rec.stop: // --max-events, or the file failed
			live.closeAll(why)
		case <-allEnded:
		}
	}()
	fileErr := rec.dialAll(runCtx, agents, &live, func() error {
		file, closeOut, err := openOutput(o, prog)
		if err != nil {
			return err
		}
		rec.closeOut = closeOut
		if err := out.release(file); err != nil {
			return fmt.Errorf("start %s: %w", o.Output, err)
		}
		return nil
	})
	close(allEnded)
	close(rec.frames) // every client has ended: no tap is left to send
	<-written
	stopProgress()
	<-progressDone
	if rec.closeOut != nil {
		defer rec.closeOut()
	}
	if fileErr != nil {
		return fileErr
	}
	return rec.summary(agents, start, ctx, runCtx)
}

// header is the capture's header: version 1 naming the one endpoint, or
// version 2 naming every connection. Unless NoRedact, an endpoint's
// environment values (exec:env KEY=VALUE …) are redacted, as secrets in
// the messages are: a capture is a file people pass around.
func header(o *Options, agents []*agent) capture.Header {
	h := capture.Header{Subscriber: "aaep-capture", Tool: "aaep-capture " + Version}
	written := transport.Shown
	if o.NoRedact {
		written = func(endpoint string) string { return endpoint }
	}
	if len(agents) == 1 {
		h.Endpoint = written(agents[0].spec.Endpoint)
		h.Transport = transport.BindingOf(h.Endpoint).String()
		return h
	}
	for _, a := range agents {
		h.Connections = append(h.Connections, capture.Connection{ID: a.id, Label: a.spec.Label, Endpoint: written(a.spec.Endpoint),
			Transport: transport.BindingOf(a.spec.Endpoint).String(), Subscriber: "aaep-capture"})
	}
	return h
}

// agent is one endpoint of a recording.
type agent struct {
	spec agentspec.Spec
	id   string // its connection ID in a capture of several; ""
	name string // how standard error names it: label, else endpoint
	// Written by the writing goroutine; read once it ended.
	n int // messages received and recorded
	// Written by its follower; read once the follower ended.
	end    subscriber.Update
	dialed error // Dial's error: the endpoint was never recorded
}

func newAgents(specs []agentspec.Spec) []*agent {
	agents := make([]*agent, len(specs))
	for i, s := range specs {
		a := &agent{spec: s, name: s.Label}
		if a.name == "" {
			a.name = protocol.Name(transport.Shown(s.Endpoint))
		}
		if len(specs) > 1 {
			a.id = fmt.Sprintf("c%d", i+1)
		}
		agents[i] = a
	}
	return agents
}

// dialAll subscribes to every agent at once and follows each until its
// End; one failing never stops the others. open opens the file when the
// first producer answered; when it fails, every client is closed and its
// error returned.
func (r *recorder) dialAll(ctx context.Context, agents []*agent, live *closers, open func() error) error {
	type dialed struct {
		a   *agent
		c   *subscriber.Client
		err error
	}
	results := make(chan dialed, len(agents))
	for _, a := range agents {
		go func() {
			c, err := subscriber.Dial(ctx, a.spec.Endpoint, r.config(a))
			results <- dialed{a, c, err}
		}()
	}
	var fileErr error
	opened := false
	var followers sync.WaitGroup
	for range agents {
		d := <-results
		if d.err != nil {
			if d.c != nil {
				<-d.c.Done() // it ended: its tap is done
			}
			d.a.dialed = d.err
			if r.many {
				r.say(d.a, fmt.Sprintf("aaep-capture: %s", protocol.Line(d.err.Error())))
				if hint := r.hint(d.err); hint != "" {
					r.say(d.a, hint)
				}
			}
			continue
		}
		if !opened && fileErr == nil {
			if fileErr = open(); fileErr == nil {
				opened = true
			} else {
				live.closeAll("The file could not be opened.")
			}
		}
		live.add(d.c)
		followers.Add(1)
		go func() {
			defer followers.Done()
			d.a.end = r.follow(d.a, d.c)
			<-d.c.Done()
		}()
	}
	followers.Wait()
	return fileErr
}

// summary says how the recording ended, for each agent of several, and
// returns the error to exit with: the file's, or the first agent's.
func (r *recorder) summary(agents []*agent, start time.Time, ctx, runCtx context.Context) error {
	filtered := ""
	if r.filtered > 0 {
		filtered = fmt.Sprintf(" %d %s left out by --filter.", r.filtered, prose.Plural(r.filtered, "message was", "messages were"))
	}
	took := time.Since(start).Round(time.Millisecond)
	if !r.many {
		a := agents[0]
		if a.dialed != nil {
			return a.dialed // it names the endpoint
		}
		why, err := r.ending(a.end, ctx, runCtx)
		r.say(a, fmt.Sprintf("%s Recorded %d %s to %s in %s.%s", why, r.n, prose.Plural(r.n, "message", "messages"),
			outputName(r.o.Output), took, filtered))
		return err
	}
	var first error
	reached := 0
	for _, a := range agents {
		why, err := "", a.dialed
		if err != nil {
			why = "It could not be recorded (said above)."
		} else {
			reached++
			why, err = r.ending(a.end, ctx, runCtx)
		}
		r.say(a, fmt.Sprintf("%s Recorded %d %s.", why, a.n, prose.Plural(a.n, "message", "messages")))
		if err != nil && first == nil {
			first = fmt.Errorf("%s: %w", a.name, err)
		}
	}
	if reached == 0 {
		return fmt.Errorf("no endpoint could be recorded")
	}
	r.prog.printf("%s\n", fmt.Sprintf("Recorded %d %s from %d of %d agents to %s in %s.%s", r.n, prose.Plural(r.n, "message", "messages"),
		reached, len(agents), outputName(r.o.Output), took, filtered))
	return first
}

// closers closes every client of a recording when it must stop, and each
// client that joins after.
type closers struct {
	mu  sync.Mutex
	why string // set once they must close
	cs  []*subscriber.Client
}

func (k *closers) add(c *subscriber.Client) {
	k.mu.Lock()
	why := k.why
	if why == "" {
		k.cs = append(k.cs, c)
	}
	k.mu.Unlock()
	if why != "" {
		c.CloseBecause(why)
	}
}

func (k *closers) closeAll(why string) {
	k.mu.Lock()
	if k.why == "" {
		k.why = why
	}
	cs := k.cs
	k.cs = nil
	k.mu.Unlock()
	for _, c := range cs {
		c.CloseBecause(why)
	}
}

// startMessage says what is recorded where, and whether prompts are answered.
func startMessage(o *Options) string {
	redaction := "Secrets are redacted (--no-redact keeps them)."
	if o.NoRedact {
		redaction = "Secrets are kept as sent: keep this file private."
	}
	prompts := "Prompts are recorded but never answered; a producer that takes a subscription is told so."
	if o.AutoReply {
		prompts = "Prompts are recorded; every confirmation is rejected (--auto-reply reject), questions are never answered."
	}
	what := protocol.Sanitize(transport.Shown(o.Agents[0].Endpoint))
	if len(o.Agents) > 1 {
		names := make([]string, len(o.Agents))
		for i, a := range newAgents(o.Agents) {
			names[i] = a.name
			if a.spec.Label != "" {
				names[i] += " (" + protocol.Name(transport.Shown(a.spec.Endpoint)) + ")"
			}
		}
		what = fmt.Sprintf("%d agents, %s,", len(names), strings.Join(names, ", "))
	}
	msg := fmt.Sprintf("Recording %s to %s. %s %s", what, outputName(o.Output), prompts, redaction)
	if !o.Filter.Empty() {
		msg += fmt.Sprintf(" Only event types matching %q are kept, and every critical event.", o.Filter.String())
	}
	if o.RotateSize > 0 {
		msg += fmt.Sprintf(" A new file is started before one grows past %d bytes.", o.RotateSize)
	}
	return msg
}

// frame is one thing a client's tap told, on its way to the writing goroutine.
type frame struct {
	a      *agent
	dir    capture.Dir
	data   []byte // a copy: the tap may not keep the client's
	at     time.Time
	status string // a transport note when not ""
}

// recorder is one recording: the clients' taps send what they see to
// frames; one goroutine (writeAll) owns the file and writes it, in the
// order the frames arrive; follow reads each client's updates.
type recorder struct {
	o    *Options
	w    *capture.Writer
	prog *progress
	// stop asks for the subscriptions to be closed, with the End's words.
	stop     chan string
	frames   chan frame
	many     bool   // several agents: lines on standard error name theirs
	closeOut func() // closes the file once opened

	// Written by writeAll; read once it ended.
	n        int   // messages received and recorded, from every agent
	filtered int   // messages left out by --filter
	full     bool  // --max-events were recorded: later ones are not
	err      error // the file could not be written: nothing more is
}

// config is an agent's client configuration: who records, with honest
// capabilities (it can answer confirmations only with --auto-reply, and
// questions never), and the one gate that decides for it.
func (r *recorder) config(a *agent) subscriber.Config {
	o := r.o
	opts := o.Transport
	if o.NoHandshake {
		opts.SSE.Layout = transport.LayoutLegacy
	}
	opts.ACP = acp.Dialer(acp.Options{Name: a.spec.Label, Version: Version, RawFile: o.ACPRaw}) // acp: agents, bridged
	return subscriber.Config{
		Identity:  session.Identity{ID: "aaep-term-capture", Name: "aaep-capture", Version: Version},
		Terms:     session.Terms{Verbosity: "detailed", CanConfirm: o.AutoReply},
		Transport: opts,
		// The manifest is checked and said, as aaep-listen does, with the
		// same credentials; nothing requires it.
		Manifest:    subscriber.ManifestConfig{Token: o.Token, Header: o.Header, Now: o.Now},
		Gate:        policy.NewGate(nil, o.AutoReply),
		AutoReplyBy: autoReplyBy,
		Hints:       captureHints,
		Now:         o.Now,
		Passive:     o.NoHandshake,
		Tap: func(dir subscriber.Direction, data []byte, at time.Time) {
			d := capture.In
			if dir == subscriber.Sent {
				d = capture.Out
			}
			r.frames <- frame{a: a, dir: d, data: bytes.Clone(data), at: at}
		},
		// A transport status (connecting, connected, reconnecting,
		// closed) is noted in its place among the frames.
		TapStatus: func(s transport.Status, detail string, at time.Time) {
			r.frames <- frame{a: a, status: s.String(), data: []byte(detail), at: at}
		},
	}
}

// writeAll writes every frame, until frames is closed.
func (r *recorder) writeAll() {
	for f := range r.frames {
		r.writeFrame(f)
	}
}

// writeFrame writes one frame a client received or sent.
func (r *recorder) writeFrame(f frame) {
	if r.err != nil {
		return
	}
	if f.at.IsZero() {
		f.at = time.Now()
	}
	if f.status != "" {
		_ = r.w.NoteFrom(f.a.id, f.status, string(f.data), f.at) // a failed write shows on the next frame
		return
	}
	if f.dir == capture.Out {
		// Everything sent is recorded, up to the close.
		r.write(f.a, capture.Out, f.data, f.at)
		return
	}
	if r.full {
		return
	}
	if !r.o.Filter.Keep(f.data) {
		r.filtered++
		return
	}
	if !r.write(f.a, capture.In, f.data, f.at) {
		return
	}
	r.prog.recorded(f.data)
	r.n++
	f.a.n++
	if r.o.MaxEvents > 0 && r.n >= r.o.MaxEvents {
		r.full = true
		r.stopWith(fmt.Sprintf("Reached --max-events %d.", r.o.MaxEvents))
	}
}

// write writes one record; when it fails nothing more is written and the
// subscriptions are closed.
func (r *recorder) write(a *agent, dir capture.Dir, data []byte, at time.Time) bool {
	if err := r.w.WriteFrom(a.id, dir, data, at); err != nil {
		r.err = err
		r.stopWith("The file could not be written.")
		return false
	}
	return true
}

// stopWith asks once for the subscriptions to be closed, saying why.
func (r *recorder) stopWith(why string) {
	select {
	case r.stop <- why:
	default:
	}
}

// follow tells on standard error what the user must know of a's
// connection as it happens (lost, back, refused, retried), until the End,
// which it returns. It takes the updates a batch at a time: most are
// deliveries a recorder has nothing to say about.
func (r *recorder) follow(a *agent, c *subscriber.Client) subscriber.Update {
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
					r.say(a, u.Text)
				}
			case subscriber.KindDiagnostic:
				if u.Diagnostic.Code == "transport" {
					r.say(a, "aaep-capture: "+u.Diagnostic.Message)
				}
			case subscriber.KindReply:
				r.say(a, replyWords(u.Reply))
			}
		}
	}
}

// hint is Options.Hint of err, "" when there is none.
func (r *recorder) hint(err error) string {
	if r.o.Hint == nil {
		return ""
	}
	return r.o.Hint(err)
}

// say writes text on standard error as a line of its own, sanitized as
// one line (textout), without the marks around the producer's words; with
// several agents, it begins with a's name.
func (r *recorder) say(a *agent, text string) {
	plain, _ := protocol.SplitTheirs(text)
	if r.many {
		plain = a.name + ": " + plain
	}
	r.prog.printf("%s\n", plain)
}

// captureHints adds aaep-capture's flags to the client's words
// (subscriber.Hints). It names only flags aaep-capture has: it signs
// nothing and pins no manifest key.
func captureHints(h subscriber.Hint, said string) string {
	switch h {
	case subscriber.HintAuthenticate:
		return strings.TrimSuffix(said, ".") + " (give a token with --token)."
	case subscriber.HintAutoReply:
		return "Your --auto-reply policy"
	}
	return ""
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

// ending says why an agent's recording ended, and the error to exit with:
// ctx is the run's, runCtx the same bounded by --duration.
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
func openOutput(o *Options, prog *progress) (io.Writer, func(), error) {
	if o.Output == "-" {
		return o.Out, func() {}, nil
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
