package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// output is what both line mode and --json offer.
type output interface {
	announce.Sink
	announce.DiagnosticSink
	Say(now time.Time, text string) error
	Flush() error
}

// listener is one run of aaep-listen: the client's updates and the typed
// commands meet on one goroutine (loop), which owns the outputs.
type listener struct {
	o     *options
	c     *subscriber.Client
	ann   *announce.Announcer
	out   output
	audit *audit.Log // --audit; nil without
	// input is what the user asks for, typed: the TUI's actions, or lines
	// read and parsed (commands.go); nil reads standard input.
	input <-chan line.Command
	// answers are the braille display's, typed; nil without a display.
	answers <-chan line.Command

	notes     *outputs.Notes // lines from the sinks' goroutines
	silencing sync.WaitGroup // "stop" commands whose cancel is still on its way (announcing.go)
	// inputClosed is the line saying standard input ended, told before the
	// next prompt offered (where it matters), or at the end.
	inputClosed string
	// opening, when not empty, is said after the first update (input.go).
	opening string
	// inputGone: standard input can bring nothing more (input.go).
	inputGone bool
	// keptAlways: an "always" answer was kept, so the gate may answer.
	keptAlways bool

	endErr error // why the run failed, from the End
	ended  bool
}

func listen(ctx context.Context, o *options) error {
	endpoint := o.Endpoint
	if o.Demo {
		d, err := startDemo(o)
		if err != nil {
			return fmt.Errorf("start the demo producer: %w", err)
		}
		defer d.stop()
		endpoint = d.url
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
	l := &listener{o: o, out: out, notes: outputs.NewNotes()}
	if o.Decide.AuditFile != "" {
		if l.audit, err = audit.Open(o.Decide.AuditFile); err != nil {
			return err
		}
		defer l.audit.Close()
	}
	extra := outputs.Open(ctx, o.outputs(ui != nil), l.notes.Add) // speech, braille, notifications
	defer extra.Close()
	l.ann = announce.New(o.announceConfig(l.sinkFailed), append([]announce.Sink{out}, extra.List...)...)

	l.inputAtStart(ui != nil || extra.Answers != nil) // the view or a braille display may answer
	l.c = subscriber.Start(ctx, endpoint, o.clientConfig(endpoint))
	defer l.c.Close()
	if ui != nil {
		ui.attach(l)
	}
	l.answers = extra.Answers // braille answers go the way typed ones go
	err = l.loop(ctx)
	ended = true
	return err
}

// clientConfig is the subscriber's configuration from the flags.
func (o *options) clientConfig(endpoint string) subscriber.Config {
	cfg := subscriber.Config{
		Identity:    session.Identity{ID: o.SubscriberID, Name: "aaep-listen", Version: version},
		Terms:       o.Terms,
		ReorderWait: o.ReorderWait,
		DecidedBy:   o.DecidedBy,
		Transport: transport.Options{SSE: transport.SSEOptions{
			Layout:        o.Layout,
			Token:         o.Token,
			Header:        o.Header,
			HTTPClient:    o.TLS.Client,
			HeaderTimeout: o.ConnectTimeout,
		}, WebSocket: transport.WSOptions{NoSubprotocol: o.WSNoSubprotocol, TLSConfig: o.TLS.Config}},
		Gate:        policy.NewGate(o.Decide.policy, o.AutoReply == protocol.DecisionReject),
		Manifest:    o.manifestConfig(),
		Credentials: cliflag.CredentialsWarning(endpoint, o.Token, o.Header, o.TLS.Cert != ""),
		Now:         o.Now,
	}
	switch {
	case o.Sign.Off:
		cfg.NoSignerWords = "--no-sign"
	case o.Sign.key != nil:
		cfg.Signer = o.Sign.key
	}
	return cfg
}

// loop takes the client's updates a batch at a time, and typed commands,
// until the End.
func (l *listener) loop(ctx context.Context) error {
	batches := make(chan []subscriber.Update)
	go func() {
		defer close(batches)
		for {
			b, err := l.c.NextBatch(context.Background(), 1024)
			if err != nil {
				return
			}
			batches <- b
		}
	}()
	lines := l.input
	if lines == nil && l.o.Endpoint != "-" { // with -, standard input is the events, not commands
		lines = line.Read(l.o.IO.In)
	}
	for {
		select {
		case b, ok := <-batches:
			if !ok {
				return l.endErr
			}
			for _, u := range b {
				l.update(u)
			}
			l.flush()
			if l.ended {
				return l.endErr
			}
		case c, ok := <-lines:
			if !ok {
				// Standard input closed: keep listening. A braille
				// display can still answer.
				lines = nil
				if l.answers == nil {
					l.inputEnded(ctx)
				}
				continue
			}
			if quit := l.do(ctx, c); quit {
				go l.c.CloseBecause("You quit.") // the End comes in the stream
				lines, l.answers = nil, nil
			}
			l.flush()
		case c := <-l.answers:
			l.do(ctx, c) // accept or reject: never quit
			l.flush()
		case <-l.notes.Ready():
			l.takeNotes()
			l.flush()
		}
	}
}

// update tells one update of the client.
func (l *listener) update(u subscriber.Update) {
	if l.opening != "" && u.Kind != subscriber.KindEnd {
		defer func() { l.say(l.opening); l.opening = "" }()
	}
	switch u.Kind {
	case subscriber.KindDelivery:
		d := u.Delivery
		if l.inputClosed != "" && d.Prompt != nil {
			l.say(l.inputClosed)
			l.inputClosed = ""
		}
		l.ann.Deliver(d)
		l.writeAudit(u)
	case subscriber.KindDiagnostic:
		l.ann.Diagnose(u.Diagnostic)
	case subscriber.KindStatus:
		l.say(u.Text)
	case subscriber.KindReply:
		l.writeAudit(u)
		l.say(u.Text)
	case subscriber.KindBreak:
		l.ann.Flush(u.At)
	case subscriber.KindEnd:
		// A stop typed just before the end still reaches the daemon
		// (which would otherwise go on with what it was given) and is
		// answered.
		l.silencing.Wait()
		l.takeNotes()
		l.ended = true
		var rej *subscriber.RejectedError
		var man *subscriber.ManifestRefusedError
		switch {
		case errors.As(u.Err, &rej) && rej.Renegotiation:
			// The subscription was accepted; its end is told.
		case errors.As(u.Err, &rej) || errors.As(u.Err, &man):
			l.o.refused = true
		case u.Err != nil && u.Text != "":
			u.Text += " Start aaep-listen again to reconnect."
			l.endErr = u.Err
		case u.Err != nil:
			l.endErr = u.Err
		}
		if l.inputClosed != "" {
			l.say(l.inputClosed)
			l.inputClosed = ""
		}
		l.say(u.Text)
	}
}

func (l *listener) say(s string) {
	if s == "" {
		return
	}
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

func (l *listener) takeNotes() {
	for _, s := range l.notes.Take() {
		l.say(s)
	}
}
