package main

// run.go: a listen run: the outputs chosen by the flags, the agents they
// name, and the console (package console) that tells their updates.

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/audit"
	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/outputs"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// newListener is the console of o writing to out and the other sinks.
func newListener(o *options, out console.Output, sinks ...announce.Sink) *console.Listener {
	return console.New(o.consoleConfig(), out, sinks...)
}

// consoleConfig is the console's configuration from the flags.
func (o *options) consoleConfig() console.Config {
	specs := o.agentSpecs()
	n := len(specs)
	if o.Local { // agents may come: bound each as for a few more
		n = max(n, localExpected)
	}
	return console.Config{
		Name: "aaep-listen", Version: version, IO: o.IO, Now: o.Now,
		Announce: o.announceConfig(nil), FixedVerbosity: o.fixedVerbosity(), Terms: o.Terms,
		Multi:    len(specs) > 1 || len(specs) == 1 && specs[0].Label != "" || o.Local,
		Expected: n, BatchMax: o.batchMax, Settle: o.AnswerAfter,
		EventsOnStdin: o.eventsOnStdin(),
		RulesAnswer:   o.Decide.policy != nil || o.AutoReply != "",
		ACPMode:       o.AgentMode, ACPTask: o.AgentTask,
		Client: o.agentConfig,
	}
}

func listen(ctx context.Context, o *options) error {
	endpoint := o.Endpoint
	if o.Demo && o.DemoAgents > 0 {
		endpoints, stop, err := startDemoAgents(o.DemoAgents, o.DemoSpeed, o.IO.Eprintf)
		if err != nil {
			return fmt.Errorf("start the demo agents: %w", err)
		}
		defer stop()
		if err := o.readAgents(endpoints); err != nil {
			return err
		}
		endpoint = o.Endpoint
	} else if o.Demo {
		d, err := startDemo(o)
		if err != nil {
			return fmt.Errorf("start the demo producer: %w", err)
		}
		defer d.stop()
		endpoint = d.url
	}

	ui, err := startTUI(o, endpoint) // nil without --tui
	notes := console.NewNotes()
	if err != nil {
		return err
	}
	var out console.Output
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
	so := o.outputs(ui != nil)
	so.Pace.SayAgents = o.severalAgents()                           // speech and braille say who speaks
	extra := outputs.Open(ctx, so, func(s string) { notes.Add(s) }) // speech, braille, notifications
	defer extra.Close()
	l := newListener(o, out, extra.List...)
	l.SetNotes(notes)
	if o.Decide.AuditFile != "" {
		log, err := audit.Open(o.Decide.AuditFile)
		if err != nil {
			return err
		}
		defer log.Close()
		l.SetAudit(log)
	}

	l.InputAtStart(ui != nil || extra.Answers != nil) // the view or a braille display may answer
	specs := o.agentSpecs()
	if o.Demo && o.DemoAgents == 0 {
		specs[0].Endpoint = endpoint
	}
	defer l.Close()
	if o.Local {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		changes, opening, err := watchLocal(wctx, o.getenv())
		if err != nil {
			return err
		}
		l.Watch(changes, stop)
		l.Say(opening)
	}
	for _, spec := range specs {
		l.StartAgent(ctx, spec)
	}
	if ui != nil {
		ui.Attach(l)
	}
	l.SetAnswers(extra.Answers) // braille answers go the way typed ones go
	err = l.Run(ctx)
	o.refused = l.Refused()
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
		Transport:   o.Transport(),
		Gate:        policy.NewGate(o.Decide.policy, o.AutoReply == protocol.DecisionReject),
		Manifest:    o.manifestConfig(),
		Hints:       listenHints,
		Credentials: o.Credentials(endpoint),
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

// agentConfig is the client configuration of the agent spec describes:
// the flags', with its --agents entry's token, headers and policy, and
// its gate bound to what the user configured.
func (o *options) agentConfig(spec agentSpec) subscriber.Config {
	ccfg := o.clientConfig(spec.Endpoint)
	if spec.Token != "" || len(spec.Header) > 0 {
		sse := &ccfg.Transport.SSE
		if spec.Token != "" {
			sse.Token = spec.Token
		}
		sse.Header = sse.Header.Clone()
		if sse.Header == nil {
			sse.Header = http.Header{}
		}
		for k, v := range spec.Header {
			sse.Header[k] = v
		}
		ccfg.Credentials = cliflag.CredentialsWarning(spec.Endpoint, sse.Token, sse.Header, o.TLS.Cert != "")
	}
	if spec.Policy != nil {
		ccfg.Gate = policy.NewGate(spec.Policy, o.AutoReply == protocol.DecisionReject)
	}
	whom := policy.Configured{Label: spec.Label, Endpoint: spec.Endpoint}
	if spec.Found {
		whom.Label = ""
	}
	ccfg.Gate.For(whom) // rules bind to what the user configured, not to what the producer says
	return ccfg
}
