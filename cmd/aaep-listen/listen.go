package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// output is what both line mode and --json offer.
type output interface {
	announce.Sink
	announce.DiagnosticSink
	Say(now time.Time, text string) error
	Flush() error
}

// sendTimeout bounds one reply POST, so a stuck producer cannot freeze the listener.
const sendTimeout = 10 * time.Second

// listener is one run of aaep-listen. One goroutine (run) owns all of it;
// the transport and standard input feed it through channels.
type listener struct {
	o     *options
	conn  transport.Conn
	dec   protocol.Decoder
	eng   *session.Engine
	ann   *announce.Announcer
	out   output
	notes chan note // transport status and problems, from its goroutine

	neg negotiation // terms asked for, granted and enforced (negotiate.go)

	autoQueue []*session.Prompt // prompts to answer by policy once Handle returns
	gates     *policy.Gate      // every decision made without the user; use gate()
	hold      promptHold        // prompts held while a burst of frames is handled (burst.go)
	audit     *audit.Log        // --audit; nil without
	silencing sync.WaitGroup    // "stop" commands whose cancel is still on its way (announcing.go)

	// input is what the user asks for, typed: the TUI's actions, or lines
	// read and parsed (commands.go); nil reads standard input.
	input <-chan line.Command
	// nobodyAnswers, with --demo, tells the demo producer nobody is left to
	// answer, so its prompts' defaults apply at once; nil otherwise.
	nobodyAnswers func()
}

func listen(ctx context.Context, o *options) error {
	endpoint := o.Endpoint
	var nobodyAnswers func() // --demo: let its prompts' defaults apply at once
	if o.Demo {
		d, err := startDemo(o)
		if err != nil {
			return fmt.Errorf("start the demo producer: %w", err)
		}
		defer d.stop()
		endpoint, nobodyAnswers = d.url, d.nobodyAnswers
	}

	ui, err := startTUI(o, endpoint) // nil without --tui
	if err != nil {
		return err
	}
	var out output
	ended := false // the stream ran to its end: the view stays open until the user quits
	if ui != nil {
		interrupted := ctx // done on an interrupt, which ends the view too
		defer func() {
			if ended {
				ui.End(interrupted)
			} else {
				ui.Close()
			}
		}()
		out = ui
	} else if o.JSON {
		out = line.NewJSON(o.IO.Out)
	} else {
		var diag io.Writer = o.IO.ErrOut
		if o.QuietDiagnostics {
			diag = nil
		}
		out = line.NewWriter(o.IO.Out, diag, line.WriterOptions{Color: o.IO.Color, NoTime: o.noTime()})
	}
	l := &listener{o: o, out: out, notes: make(chan note, 64), nobodyAnswers: nobodyAnswers}
	if o.Decide.AuditFile != "" {
		if l.audit, err = audit.Open(o.Decide.AuditFile); err != nil {
			return err
		}
		defer l.audit.Close()
	}
	ctx, stopRun := l.begin(ctx, endpoint) // tls.go: credentials warning; a refused manifest ends the run
	defer stopRun()
	extra := openSinks(ctx, o.paced(), ui != nil, l.note) // speech, braille, notifications
	defer extra.Close()
	l.ann = announce.New(o.announceConfig(l.sinkFailed), append([]announce.Sink{out}, extra.list...)...)
	l.eng = session.New(session.Config{ReorderWait: o.ReorderWait, DecidedBy: o.DecidedBy}, l)
	l.eng.Filtered(o.Terms.Filters())
	if ui != nil {
		ui.attach(l)
	}
	l.input = extra.withAnswers(l.input, o.IO.In) // braille answers go the way typed ones go

	topts := transport.Options{SSE: transport.SSEOptions{
		Layout:              layout(o.Layout),
		Token:               o.Token,
		SubscriptionRequest: subscriptionRequest(o),
		SendHeader:          o.sendHeader,
		Header:              o.Header,
		HTTPClient:          o.TLS.client,
		HeaderTimeout:       o.ConnectTimeout,
		OnStatus: func(s transport.Status, detail string) {
			l.queueNote(note{text: statusWords(endpoint, s, detail), ends: s == transport.StatusReconnecting || s == transport.StatusClosed})
		},
		OnDiagnostic: l.transportProblem,
	}, WebSocket: transport.WSOptions{NoSubprotocol: o.WSNoSubprotocol, TLSConfig: o.TLS.config}}
	conn, err := l.dial(ctx, endpoint, topts)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", endpoint, err)
	}
	l.conn = l.retrying(conn, endpoint, topts) // retry.go: subscribe again when a rejection allows it
	defer l.conn.Close()
	err = l.run(ctx)
	ended = true
	return err
}

// dial makes the first connection, saying its status lines ("Connecting
// to …") as they come, not once it is made: a producer may keep the
// connection waiting up to the connect deadline.
func (l *listener) dial(ctx context.Context, endpoint string, opts transport.Options) (transport.Conn, error) {
	type dialed struct {
		conn transport.Conn
		err  error
	}
	done := make(chan dialed, 1)
	go func() {
		conn, err := transport.Dial(ctx, endpoint, opts)
		done <- dialed{conn, err}
	}()
	for {
		select {
		case n := <-l.notes:
			l.show(n)
		case d := <-done:
			if d.err != nil {
				l.drainNotes() // before the error, which the caller prints
			}
			return d.conn, d.err
		}
	}
}

// Deliver implements session.Output: announce, and queue prompts the user's
// policy answers.
func (l *listener) Deliver(d session.Delivery) {
	if !l.admit(d) {
		return // the negotiated filters or rate leave it out
	}
	if !l.held(d) {
		l.deliver(d)
	}
}

// deliver announces d, logs it and queues the prompts a policy may answer.
func (l *listener) deliver(d session.Delivery) {
	l.ann.Deliver(d)
	l.auditDelivery(d)
	l.queueForPolicy(d)
}

// Diagnose implements session.Output.
func (l *listener) Diagnose(d session.Diagnostic) { l.ann.Diagnose(d) }

func (l *listener) run(ctx context.Context) error {
	// Frames are decoded on the receiving goroutine, so decoding and
	// validation run beside the engine and the output, on another core.
	frames := make(chan decoded, 256)
	recvErr := make(chan error, 1)
	go func() {
		var dec protocol.Decoder
		for {
			f, err := l.conn.Recv(ctx)
			if err != nil {
				recvErr <- err
				return
			}
			select {
			case frames <- decode(&dec, f):
			case <-ctx.Done():
				return
			}
		}
	}()
	lines := l.input
	if lines == nil && l.o.Endpoint != "-" { // with -, standard input is the events, not commands
		lines = parsed(readLines(l.o.IO.In))
	}

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		l.resetTimer(timer)
		select {
		case f := <-frames:
			// What is already waiting is one burst, handled before paying
			// for a flush.
			l.handleQueued(frames, min(len(frames), 1024), &f)
			if len(frames) == 0 {
				l.flush()
			}
			if l.ended() {
				return nil
			}
		case c, ok := <-lines:
			if !ok {
				lines = nil // standard input closed: keep listening
				l.inputEnded()
				continue
			}
			if quit := l.do(ctx, c); quit {
				l.closeSubscription(session.CloseShutdown, "You quit.")
				l.finish("You quit.")
				return nil
			}
			l.flush()
		case n := <-l.notes:
			// A status line comes from the transport's goroutine, after
			// the frames it had queued: those are told first, so "Connection
			// lost" never comes before the last events of the stream.
			l.handleQueued(frames, len(frames), nil)
			l.show(n)
			if l.ended() {
				l.flush()
				return nil
			}
		case <-timer.C:
			l.eng.Tick(l.o.Now())
			l.flush()
		case err := <-recvErr:
			l.handleQueued(frames, len(frames), nil) // sent before the error: a rejection, the last events
			if l.ended() {
				return nil // the producer closed the subscription, and said why
			}
			l.drainNotes()
			if errors.Is(err, io.EOF) {
				l.finish("The producer ended the stream.")
				return nil
			}
			if ctx.Err() != nil {
				l.closeSubscription(session.CloseShutdown, "Stopped.")
				l.finish("Stopped.")
				return nil
			}
			l.finish("The connection to the producer was lost and could not be restored, so nothing more will arrive. Start aaep-listen again to reconnect.")
			return fmt.Errorf("receive: %w", err)
		case <-ctx.Done():
			l.closeSubscription(session.CloseShutdown, "Stopped.")
			l.finish("Stopped.")
			return nil
		}
	}
}

// inputEnded is told when standard input ends, so nobody can type an
// answer any more. The demo producer then applies each prompt's default at
// once rather than after its full timeout; a real producer waits as it
// will, and each prompt's end is announced when it comes. With a policy or
// --auto-reply, rules can still answer: the demo's prompts wait for them.
func (l *listener) inputEnded() {
	if l.nobodyAnswers == nil {
		return
	}
	if l.o.Decide.policy != nil || l.o.AutoReply != "" {
		l.say("Standard input is closed: only your --policy or --auto-reply rules can answer now; other prompts wait until their time runs out.")
		return
	}
	l.say("Standard input is closed, so nobody can answer here: the demo producer applies each prompt's default decision at once.")
	l.nobodyAnswers()
	l.flush()
}

// handleQueued handles first (when not nil) and then the next n frames
// waiting in frames, as one burst: prompts are held until all are handled,
// so one settled later in the burst is never offered (burst.go). Only the
// run loop receives from frames, so n = len(frames) are there to take.
func (l *listener) handleQueued(frames <-chan decoded, n int, first *decoded) {
	if first == nil && n == 0 {
		return
	}
	l.holdPrompts()
	if first != nil {
		l.handle(*first)
	}
	for range n {
		l.handle(<-frames)
	}
	l.releasePrompts()
}

// decoded is a frame with what decoding it found: a handshake or reply
// message, or an event and any problem with it.
type decoded struct {
	frame   transport.Frame
	message string // the type of a handshake or reply message; "" for an event
	answer  bool   // the answer to the subscription request (transport.EventHandshake)
	ev      *protocol.Event
	err     error
}

// decode classifies and decodes one frame. What is an event is decided by
// the decoder (protocol.KindOf), exactly as aaep-replay check decides it.
// It touches nothing but dec, so it may run on the receiving goroutine.
func decode(dec *protocol.Decoder, f transport.Frame) decoded {
	answer := f.Event == transport.EventHandshake
	ev, err := dec.Decode(f.Data)
	var ne *protocol.NotEventError
	switch {
	case errors.As(err, &ne):
		return decoded{frame: f, message: ne.Type, answer: answer}
	case answer:
		// The answer to the subscription request is no event, whatever it holds.
		typ := protocol.PeekType(f.Data)
		if ev != nil {
			typ = ev.Type
		}
		return decoded{frame: f, message: typ, answer: true}
	}
	return decoded{frame: f, ev: ev, err: err}
}

// frame decodes one frame and feeds it to the engine.
func (l *listener) frame(f transport.Frame) { l.handle(decode(&l.dec, f)) }

// handle feeds one decoded frame to the engine, or the handshake. A
// handshake or reply message, and the answer to the subscription request
// whatever it holds, is never announced as an event.
func (l *listener) handle(d decoded) {
	now := l.o.Now()
	switch {
	case d.message == protocol.TypeSubscriptionAccepted:
		l.accepted(d.frame.Data, now)
		return
	case d.message == protocol.TypeSubscriptionRejected:
		l.rejected(d.frame.Data, now)
		return
	case d.message == protocol.TypeSubscriptionClose:
		l.closedByProducer(d.frame.Data)
		return
	case d.answer:
		what := "a message without a type"
		if d.message != "" {
			what = "a " + protocol.Sanitize(d.message) + " message"
		}
		l.Diagnose(session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf(
			"The producer answered the subscription request with %s, not subscription.accepted or subscription.rejected; it is not an event, so it is not announced.", what)})
		return
	case d.message != "":
		l.Diagnose(session.Diagnostic{At: now, Code: "invalid", Message: fmt.Sprintf(
			"The producer sent a %s message where events are expected; it is not an event, so it is not announced.", protocol.Sanitize(d.message))})
		return
	}
	if d.err != nil {
		l.Diagnose(session.Diagnostic{At: now, Code: "invalid", Message: decodeProblem(d.ev, d.err, len(d.frame.Data))})
	}
	if d.ev == nil {
		return
	}
	l.manifestEvent(d.ev) // a producer without a handshake: its manifest, once
	l.eng.Handle(d.ev, now)
	l.answerByPolicy(now)
}

// endKind says what becomes of the prompts still pending when the run
// ends. With a subscription, closed by us or ending with its connection,
// the producer applies their default decisions (spec §5.8.2, §8.2.5).
// Without one (the deployed layout has no handshake) nothing tells the
// producer: the prompts are left unanswered and the agent still waits.
func (l *listener) endKind() session.EndKind {
	if l.neg.subID != "" || l.neg.closed {
		return session.EndClosed
	}
	return session.EndLeft
}

// finish releases everything held and tells the user what ended.
func (l *listener) finish(why string) {
	// A stop typed just before the end still reaches the daemon (which
	// would otherwise go on with what it was given) and is answered.
	l.silencing.Wait()
	l.drainNotes()
	l.releasePrompts()
	now := l.o.Now()
	l.eng.Flush(now)
	l.endBurst(now)
	l.ann.Flush(now)
	l.eng.End(now, l.endKind())
	l.say(why)
	l.flush()
}

func (l *listener) resetTimer(t *time.Timer) {
	t.Stop()
	select {
	case <-t.C:
	default:
	}
	next := l.eng.NextDeadline()
	if next.IsZero() {
		return
	}
	t.Reset(max(next.Sub(l.o.Now()), 0))
}

// note is a line from the transport's goroutine: a status for stdout, or
// a problem with what the producer sent, for the diagnostics.
type note struct {
	text    string
	problem bool
	ends    bool // the connection ended: what the engine holds for order comes first
}

func (l *listener) note(s string) { l.queueNote(note{text: s}) }

func (l *listener) transportProblem(s string) { l.queueNote(note{text: s, problem: true}) }

func (l *listener) queueNote(n note) {
	select {
	case l.notes <- n:
	default: // the user is already far behind on status lines; events matter more
	}
}

func (l *listener) show(n note) {
	if n.problem {
		l.Diagnose(session.Diagnostic{At: l.o.Now(), Code: "transport", Message: n.text})
		return
	}
	if n.ends {
		// No earlier event will come on this connection: release what
		// waited for one, so it is told before the connection's end.
		now := l.o.Now()
		l.eng.Flush(now)
		l.ann.Flush(now)
	}
	l.say(n.text)
}

func (l *listener) drainNotes() {
	for {
		select {
		case n := <-l.notes:
			l.show(n)
		default:
			return
		}
	}
}

func (l *listener) say(s string) {
	if err := l.out.Say(l.o.Now(), s); err != nil {
		l.sinkFailed(err)
	}
}

func (l *listener) flush() {
	if err := l.out.Flush(); err != nil {
		l.sinkFailed(err)
	}
}

func (l *listener) sinkFailed(err error) {
	l.o.IO.Eprintf("aaep-listen: %v\n", err)
}

// readLines delivers whole typed lines; the channel closes at end of input.
func readLines(r io.Reader) <-chan string {
	ch := make(chan string)
	if r == nil {
		close(ch)
		return ch
	}
	go func() {
		defer close(ch)
		br := bufio.NewReader(r)
		for {
			s, err := br.ReadString('\n')
			if s != "" {
				ch <- strings.TrimRight(s, "\r\n")
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// decodeProblem puts a decoding failure in one sentence.
func decodeProblem(ev *protocol.Event, err error, size int) string {
	var ve *protocol.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Sprintf("Dropped a message of %d bytes that is not an AAEP event: %v.", size, err)
	}
	what := "An event"
	if ev != nil {
		what = fmt.Sprintf("Event %s (%s)", protocol.Sanitize(ev.EventID), protocol.Sanitize(ev.Type))
	}
	var parts []string
	for i, p := range ve.Problems {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ve.Problems)-3))
			break
		}
		where := p.Pointer
		if where == "" {
			where = "the event"
		}
		parts = append(parts, protocol.Sanitize(where+": "+p.Message))
	}
	verb := "is announced anyway"
	if ev == nil {
		verb = "was dropped"
	}
	return fmt.Sprintf("%s breaks the AAEP schema and %s: %s.", what, verb, strings.Join(parts, "; "))
}
