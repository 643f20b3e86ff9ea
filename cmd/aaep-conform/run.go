// run.go: aaep-conform producer and subscriber, and what they share: the
// lines, the reports, the receipt.

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/manifest"
)

const producerUsage = `Usage: aaep-conform producer ENDPOINT --level N [flags]

Tests the producer at ENDPOINT (http(s)://, ws(s)://, unix:PATH,
grpc(s)://, or exec:COMMAND for a stdio producer, as aaep-listen takes
it) against every producer requirement of AAEP Level N (1, 2 or 3, each
including the levels below): it subscribes, several times with different
terms, drives sessions, answers the prompts it finds and checks what comes
back.

Each test is one line: PASS, FAIL, SKIP or WARN, its ID and why. The
producer's own words in these lines are sanitized. Then a summary and, only
when every test of the level passed, the conformance claim:
  X is AAEP Level N conformant, verified by aaep-conform version V on DATE

Levels 2 and 3 answer the agent's prompts for real (an action the suite
accepts really happens), so they need --answer-prompts; point the suite at
a test deployment, not at an agent that acts on real accounts.

Sessions start on their own, or with --trigger 'METHOD URL [BODY]': one
argument, method, URL and an optional JSON body separated by the first two
spaces, for example
  --trigger 'POST https://agent.example/sessions {"user_message":"list files"}'

Exit status: 0 when every test of the level passed (warnings allowed), 1
when one failed or was skipped, 2 when the suite could not run.

Flags:
`

const subscriberUsage = `Usage: aaep-conform subscriber --level N [--exec CMD | --addr HOST:PORT] [flags]

Tests a subscriber: aaep-conform acts as a scripted producer and checks the
subscriber requirements of AAEP Level N that a producer can observe (the
handshake and its capabilities, reply tokens echoed exactly, no reply
without a user action over a confirmation's whole timeout, replies of the
right kind saying what the user typed, lower terms accepted without a
renegotiation storm, renegotiation and close when asked, unknown types and
extensions not breaking the stream) and, with --exec, what it announces
(session lifecycle and tools, the three endings told apart, critical
events despite its filters, duplicates once, order restored).

With --exec the suite runs the subscriber itself, {endpoint} in CMD
replaced by where the suite serves, and drives its standard input as a user
would; without it, the suite serves on --addr and waits for a subscriber to
connect, printing where.

Lines, reports, receipts and exit status are as for aaep-conform producer.

Flags:
`

// runFlags are the flags producer and subscriber share.
type runFlags struct {
	level    int
	fast     bool
	jsonOut  string
	htmlOut  string
	receipt  string
	signKey  string
	validFor conform.Validity
}

func (f *runFlags) add(fs *flag.FlagSet) {
	fs.IntVar(&f.level, "level", 0, "the conformance `LEVEL` to test: 1, 2 or 3 (required)")
	fs.BoolVar(&f.fast, "fast", false, "skip the tests that wait out long timeouts (each says it was skipped, so no claim is made above Level 1 with them)")
	fs.StringVar(&f.jsonOut, "json", "", "also write the JSON report to `FILE` (schema: docs/schemas/conform-report.schema.json)")
	fs.StringVar(&f.htmlOut, "html", "", "also write the accessible HTML report to `FILE`")
	fs.StringVar(&f.receipt, "receipt", "", "write a signed receipt of the run to `FILE` (needs --sign-key)")
	fs.StringVar(&f.signKey, "sign-key", "", "private `KEY` file that signs the receipt: PEM or JWK, ES256 (P-256) or Ed25519 (make one with aaep-conform key)")
	f.validFor = conform.Validity(conform.DefaultValidity)
	fs.Var(&f.validFor, "valid-for", "how long the receipt is valid: days such as 90d, or a duration such as 36h")
}

// check checks the flags and loads the signing key, before anything runs:
// a run that cannot write the receipt asked for does not start.
func (f *runFlags) check() (*conform.SigningKey, error) {
	if f.level < 1 || f.level > 3 {
		if f.level == 0 {
			return nil, cliflag.Usagef("say which level to test with --level 1, 2 or 3")
		}
		return nil, cliflag.Usagef("--level %d: the levels are 1, 2 and 3", f.level)
	}
	switch {
	case f.receipt != "" && f.signKey == "":
		return nil, cliflag.Usagef("--receipt needs --sign-key KEY: a receipt is signed with a real key or not written")
	case f.receipt == "" && f.signKey != "":
		return nil, cliflag.Usagef("--sign-key without --receipt FILE signs nothing")
	case f.receipt == "":
		return nil, nil
	}
	k, err := conform.LoadSigningKey(f.signKey)
	if err != nil {
		return nil, cliflag.Usage(err)
	}
	return k, nil
}

func runProducer(ctx context.Context, args []string, d *deps) (int, error) {
	fs := flag.NewFlagSet("producer", flag.ContinueOnError)
	var f runFlags
	f.add(fs)
	var (
		trigger string
		conn    cliflag.Conn
	)
	var (
		answer                 bool
		manifestAt             string
		manifestDir, pinnedKey string
		hold, quiet            time.Duration
	)
	fs.BoolVar(&answer, "answer-prompts", false, "answer the producer's prompts for real, as Levels 2 and 3 must: accept some confirmations, reject others, answer clarifications (required for --level 2 and 3)")
	fs.StringVar(&manifestAt, "manifest", "", "where a producer on a local binding (unix:, exec:) documents its manifest: a `FILE` or an http(s) URL")
	fs.StringVar(&manifestDir, "manifest-keys", "", "`DIR` of trusted public keys (JWK) a signed manifest must verify with")
	fs.StringVar(&pinnedKey, "manifest-key", "", "the one public key (JWK `FILE`) a signed manifest must verify with")
	fs.DurationVar(&hold, "hold", 0, "the longest a confirmation is left unanswered to see that the producer waits for it: up to its own timeout (default "+conform.DefaultHold.String()+", 5s with --fast)")
	fs.DurationVar(&quiet, "quiet", 0, "how long the producer may send nothing, every session seen ended, before the run is over (default "+conform.DefaultQuiet.String()+")")
	fs.StringVar(&trigger, "trigger", "", "start each session with an HTTP request: `'METHOD URL [BODY]'`, one argument")
	conn.Register(fs, cliflag.ConnAll) // the listener's connection flags
	rest, err := cliflag.ParseHelp(fs, args, producerUsage, d.io.Out)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) != 1 {
		return exitCannot, cliflag.Usagef("give exactly one producer ENDPOINT, got %d", len(rest))
	}
	if err := conform.CheckTrigger(trigger); err != nil {
		return exitCannot, cliflag.Usage(err)
	}
	key, err := f.check()
	if err != nil {
		return exitCannot, err
	}
	if f.level >= 2 && !answer {
		return exitCannot, cliflag.Usagef("%s Level %d answers them, so it needs --answer-prompts to say you mean it.", answersPrompts, f.level)
	}
	if hold < 0 || quiet < 0 {
		return exitCannot, cliflag.Usagef("--hold and --quiet are durations such as 2s, not negative")
	}
	var keys *manifest.Keys
	if manifestDir != "" || pinnedKey != "" {
		if keys, err = manifest.LoadKeys(manifestDir, pinnedKey); err != nil {
			return exitCannot, cliflag.Usage(err)
		}
	}
	if err := conn.Load(d.getenv); err != nil {
		return exitCannot, err
	}
	endpoint := rest[0]
	if w := conn.Credentials(endpoint); w != "" {
		d.io.Eprintf("%s\n", w)
	}
	if key != nil && key.Warning != "" {
		d.io.Eprintf("%s\n", key.Warning)
	}
	if f.level >= 2 {
		d.io.Eprintf("%s\n", answersPrompts)
	}
	p := &conform.Printer{Printf: d.io.Printf}
	rep, err := d.testProducer(ctx, conform.ProducerOptions{
		Endpoint:     endpoint,
		Level:        conform.Level(f.level),
		Fast:         f.fast,
		Trigger:      trigger,
		Manifest:     manifestAt,
		ManifestKeys: keys,
		Hold:         hold,
		Quiet:        quiet,
		Transport:    conn.Transport(),
		Progress:     p.Result,
	})
	if err != nil {
		return exitCannot, fmt.Errorf("could not test %s: %w", endpoint, err)
	}
	if rep != nil && rep.Target.Endpoint == "" {
		rep.Target.Endpoint = endpoint
	}
	return finish(rep, conform.RoleProducer, &f, key, p, d)
}

func runSubscriber(ctx context.Context, args []string, d *deps) (int, error) {
	fs := flag.NewFlagSet("subscriber", flag.ContinueOnError)
	var f runFlags
	f.add(fs)
	var (
		execCmd, addr                       string
		acceptLine, answerLine, renegotiate string
		rejectLine                          string
		shutdown, binding                   string
		window, patience                    time.Duration
		showOutput                          bool
	)
	fs.StringVar(&execCmd, "exec", "", "run the subscriber as `CMD`, {endpoint} in it replaced by where the suite serves, and drive its standard input")
	fs.StringVar(&addr, "addr", "", "serve on `HOST:PORT` and wait for a subscriber to connect (default 127.0.0.1 on a free port)")
	fs.StringVar(&binding, "binding", "", "with --exec, the {endpoint} given: sse (the HTTP binding, spec layout) or websocket (default sse)")
	fs.StringVar(&acceptLine, "accept-line", "", "with --exec, the `LINE` typed to accept a confirmation; {n} is the prompt's number, {token} its reply_token (default \"accept {n}\" then \"yes\", as aaep-listen takes an accept that cannot be undone)")
	fs.StringVar(&rejectLine, "reject-line", "", "with --exec, the `LINE` typed to reject a confirmation; {n}, {token} as for --accept-line (default \"reject {n}\")")
	fs.StringVar(&answerLine, "answer-line", "", "with --exec, the `LINE` typed to answer a clarification; {n}, {token}, and {text} the answer (default \"answer {n} {text}\")")
	fs.StringVar(&renegotiate, "renegotiate-line", "", "with --exec, the `LINE` typed to ask for new terms (default \"set rate 2\")")
	fs.StringVar(&shutdown, "shutdown", "", "with --exec, how the subscriber is told to stop: stdin (close its standard input) or interrupt (SIGINT) (default: stdin, then interrupt if no subscription.close comes)")
	fs.DurationVar(&window, "window", 0, "the timeout of the confirmation nobody answers: from when it reaches the subscriber until it has passed and a second more, no reply may come (default 5s; 3s with --fast; whole seconds)")
	fs.DurationVar(&patience, "patience", 0, "how long a reply may take once the user acted, and an announcement once its event was sent (default 10s); the subscriber has three times as long to connect")
	fs.BoolVar(&showOutput, "show-output", false, "with --exec, show the subscriber's own output on standard error, line by line, sanitized and marked as its words")
	rest, err := cliflag.ParseHelp(fs, args, subscriberUsage, d.io.Out)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) != 0 {
		return exitCannot, cliflag.Usagef("the subscriber test takes no operand (use --exec CMD or --addr HOST:PORT), got %q", strings.Join(rest, " "))
	}
	if execCmd != "" && addr != "" {
		return exitCannot, cliflag.Usagef("give --exec or --addr, not both")
	}
	if execCmd == "" && (acceptLine != "" || rejectLine != "" || answerLine != "" || renegotiate != "" || shutdown != "" || showOutput) {
		return exitCannot, cliflag.Usagef("--accept-line, --reject-line, --answer-line, --renegotiate-line, --shutdown and --show-output go with --exec")
	}
	switch {
	case shutdown != "" && shutdown != conform.ShutdownStdin && shutdown != conform.ShutdownInterrupt:
		return exitCannot, cliflag.Usagef("--shutdown %s: say stdin or interrupt", shutdown)
	case binding != "" && binding != conform.BindingSSE && binding != conform.BindingWebSocket:
		return exitCannot, cliflag.Usagef("--binding %s: say sse or websocket", binding)
	case window < 0 || patience < 0:
		return exitCannot, cliflag.Usagef("--window and --patience are durations such as 2s, not negative")
	}
	// The subscriber's words, shown line by line (conform.Lines), marked
	// as its words and sanitized (term.IO): none reaches the terminal raw.
	lines := &conform.Lines{Show: func(s string) { d.io.Eprintf("The subscriber wrote: %s\n", s) }}
	var output io.Writer
	if showOutput {
		output = lines
	}
	key, err := f.check()
	if err != nil {
		return exitCannot, err
	}
	if key != nil && key.Warning != "" {
		d.io.Eprintf("%s\n", key.Warning)
	}
	p := &conform.Printer{Printf: d.io.Printf}
	rep, err := d.testSubscriber(ctx, conform.SubscriberOptions{
		Level:           conform.Level(f.level),
		Fast:            f.fast,
		Exec:            execCmd,
		Addr:            addr,
		Binding:         binding,
		AcceptLine:      acceptLine,
		RejectLine:      rejectLine,
		AnswerLine:      answerLine,
		RenegotiateLine: renegotiate,
		Shutdown:        shutdown,
		Window:          window,
		Patience:        patience,
		Output:          output,
		Ready: func(endpoint string) {
			if execCmd == "" {
				d.io.Printf("Serving as a scripted producer; connect the subscriber to test to %s\n", endpoint)
			}
		},
		Progress: p.Result,
	})
	lines.Flush() // the subscriber has stopped: its last words, before ours
	if err != nil {
		return exitCannot, fmt.Errorf("could not test the subscriber: %w", err)
	}
	if rep != nil && rep.Target.Command == "" {
		rep.Target.Command = execCmd
	}
	return finish(rep, conform.RoleSubscriber, &f, key, p, d)
}

// answersPrompts is said before a Level 2 or 3 producer run, and instead
// of it without --answer-prompts: the suite answers for real.
const answersPrompts = "This run accepts and rejects the agent's prompts for real: an action it accepts really happens (on a live agent, a payment would be made)."

// finish prints what the report adds up to, writes the reports and the
// receipt asked for, and returns the exit code.
func finish(rep *conform.Report, role conform.Role, f *runFlags, key *conform.SigningKey, p *conform.Printer, d *deps) (int, error) {
	if rep == nil {
		return exitCannot, fmt.Errorf("the suite returned no report")
	}
	// The suite is named by this build, whatever the catalogue filled in.
	rep.Suite = d.suite()
	rep.Role = role
	rep.Level = conform.Level(f.level)
	rep.Fast = rep.Fast || f.fast
	if rep.Finished.IsZero() {
		rep.Finished = d.now()
	}
	p.Finish(rep)
	if err := writeReports(rep, f, key, d); err != nil {
		return exitCannot, err
	}
	if rep.Conforming() {
		return exitConforming, nil
	}
	return exitNot, nil
}

func writeReports(rep *conform.Report, f *runFlags, key *conform.SigningKey, d *deps) error {
	return rep.WriteFiles(conform.Files{
		JSON: f.jsonOut, HTML: f.htmlOut,
		Receipt: f.receipt, Key: key, Now: d.now(), ValidFor: time.Duration(f.validFor),
	}, func(s string) { d.io.Printf("%s\n", s) })
}
