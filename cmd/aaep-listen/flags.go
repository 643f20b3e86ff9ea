package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/tui"
)

var errHelp = errors.New("help requested")

// options is everything a listen run needs, settled once from flags and environment.
type options struct {
	IO *term.IO
	// Endpoint is the first agent's endpoint; Agents every agent's, with
	// its label (LABEL=ENDPOINT, --agents).
	Endpoint string
	Agents   []agentSpec
	// agentsFile is --agents FILE; DemoAgents --demo --agents N.
	agentsFile string
	DemoAgents int
	// entries are the --agents file's entries by their index in Agents,
	// until settleAgentsFile.
	entries map[int]*agentEntry
	// AgentTask and AgentMode are --task and --agent-mode, for acp: agents.
	AgentTask, AgentMode string
	// Local: --local, every producer socket in the local directory too
	// (local.go).
	Local bool

	Demo          bool
	DemoScenarios []string
	DemoQuirks    bool
	DemoSpeed     float64
	DemoGRPC      bool // serve the demo over gRPC, not HTTP

	Verbosity        string
	NoTime           bool // --no-time: no time at the start of each line (or "timestamps": false in the settings file)
	JSON             bool
	QuietDiagnostics bool
	AutoReply        string // "" or "reject"
	DecidedBy        string

	// Conn is the connection flags: --token (or AAEP_TOKEN), --header,
	// --layout, --connect-timeout, --ws-no-subprotocol and TLS (--ca,
	// --cert, --client-key).
	cliflag.Conn
	ReorderWait time.Duration
	// AnswerAfter is --answer-after: subscriber.GroupConfig.Settle (0 for
	// its default, negative for at once).
	AnswerAfter time.Duration

	TUI tui.Flags // --tui and its flags

	Sign signOptions // --key, --no-sign and the key, in sign.go

	Sinks sinkOptions // --speech, --braille, --notify and theirs, in sinks.go

	Terms        session.Terms // --rate, --lang, --coalesce, --include, … in terms.go
	SubscriberID string        // stable per user and configuration, in terms.go

	Manifest manifestOptions // --require-signed-manifest, --trusted-keys, --manifest-key, in manifest.go

	Decide decideOptions // --policy and --audit, in decide.go

	Now func() time.Time
	// Getenv reads the environment (the config directory, tokens).
	Getenv func(string) string

	// refused is set by the run when the producer refused the
	// subscription and never accepted it: the exit status is then 1.
	refused bool

	// batchMax is the most updates one agent hands the loop at a time;
	// 0 for defaultBatchMax (agents.go). No flag sets it:
	// BenchmarkFloodedNeighbour does, to compare sizes.
	batchMax int
}

const usageText = `Usage: aaep-listen [flags] ENDPOINT
       aaep-listen [flags] [LABEL=]ENDPOINT [LABEL=]ENDPOINT…
       aaep-listen [flags] --agents FILE [ENDPOINT…]
       aaep-listen [flags] --local [ENDPOINT…]
       aaep-listen --demo [flags]
       aaep-listen [flags] --exec COMMAND [ARGS…]
       aaep-listen key [--key FILE]    show the reply-signing key's thumbprint
                                       (made at FILE, 0600, when not there)
       aaep-listen version, --version  version, commit, Go and AAEP versions
       aaep-listen manifest [flags] ENDPOINT
                                       what the producer's manifest claims, and
                                       whether its signature verifies

Connects to an AAEP producer and announces what its agents do, one plain line
per announcement, and lets you answer confirmations and questions by typing.

ENDPOINT is one of:
` + cliflag.Endpoints + `  acp:COMMAND ARGS…           start an agent that speaks the Agent Client
                              Protocol (gemini --acp, claude-agent-acp, …) and
                              hear it as an AAEP producer: tell TEXT gives it
                              a task, cancel stops it (docs/agents.md)

--exec COMMAND ARGS… (last on the line) is exec: without the quoting.

Several endpoints are several agents in one run, each its own subscription;
every line names its agent. LABEL=ENDPOINT names one (LABEL: letters, digits,
- and _), as in mail=http://127.0.0.1:8081. --agents FILE lists agents with
settings of their own (docs/usage.md).

` + command.Usage + `
Flags:
`

// parseFlags reads args into options. Flags and the endpoint may come in any order.
func parseFlags(args []string, tio *term.IO, getenv func(string) string) (*options, error) {
	o := &options{IO: tio, Now: time.Now, Getenv: getenv}
	fs := flag.NewFlagSet("aaep-listen", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		plain    bool
		scenario string
		connect  string
		agents   string
	)
	fs.StringVar(&connect, "connect", "", "producer `ENDPOINT` (same as the argument)")
	fs.StringVar(&agents, "agents", "", "listen to the agents this JSON `FILE` lists, each with settings of its own (see docs/usage.md); with --demo, a number of demo agents")
	fs.StringVar(&o.AgentTask, "task", "", "the first task (`TEXT`) for every acp: agent, given once its session is open")
	fs.StringVar(&o.AgentMode, "agent-mode", "", "the `MODE` to choose in every acp: agent (default: the one named default, in which it asks before acting)")
	fs.BoolVar(&o.Local, "local", false, "also listen to every local producer: each socket in $XDG_RUNTIME_DIR/aaep/, and those that appear later")
	fs.BoolVar(&o.Demo, "demo", false, "start the built-in demo producer on loopback and listen to it")
	fs.StringVar(&scenario, "demo-scenarios", "", "comma-separated demo `NAMES` to play (default: all, in order)")
	fs.BoolVar(&o.DemoQuirks, "demo-quirks", false, "make the demo producer behave like deployed producers (no handshake, quirks)")
	fs.BoolVar(&o.DemoGRPC, "demo-grpc", false, "serve the demo producer over gRPC (grpc://) instead of HTTP")
	fs.Float64Var(&o.DemoSpeed, "demo-speed", 1, "demo pace, as aaep-replay --speed: 1 is natural, 2 twice as fast, 0.5 half as fast, 0 without pauses")
	fs.StringVar(&o.Verbosity, "verbosity", "normal", "how much to say: terse, normal or detailed (verbose is detailed), as set verbosity takes")
	fs.BoolVar(&o.NoTime, "no-time", false, "do not start each line with its time (also \"timestamps\": false in the --config file)")
	fs.BoolVar(&o.JSON, "json", false, "write one JSON record per announcement and diagnostic instead of lines")
	fs.BoolVar(&plain, "plain", false, "plain lines with no escape sequences (the default unless stdout is a colour terminal)")
	fs.BoolVar(&o.QuietDiagnostics, "quiet-diagnostics", false, "do not print diagnostics (invalid events, duplicates, gaps) on stderr")
	fs.StringVar(&o.AutoReply, "auto-reply", "", "answer confirmations without asking: only \"reject\" is allowed")
	fs.StringVar(&o.DecidedBy, "decided-by", "", "who answers, sent as decided_by in replies (e.g. user:ada)")
	o.Conn.Register(fs, cliflag.ConnAll)
	fs.DurationVar(&o.ReorderWait, "reorder-wait", 750*time.Millisecond, "longest time to hold events while waiting for a missing one")
	answerAfter := fs.Duration("answer-after", subscriber.Settle, "an answer naming no prompt number (accept, a TUI or braille key) applies only to a prompt said this long ago, with the prompts waiting unchanged as long; 0 for at once")
	o.TUI.Add(fs)
	addSignFlags(fs, &o.Sign)
	o.Sign.Getenv = getenv
	addSinkFlags(fs, &o.Sinks, getenv)
	addDecideFlags(fs, &o.Decide)
	addManifestFlags(fs, &o.Manifest)
	args, execArgv := cliflag.CutExec(args)
	cliflag.Terms(fs, &o.Terms)

	rest, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(tio.Out, fs)
		return nil, errHelp
	}
	if err != nil {
		return nil, err
	}
	if plain {
		tio.Plain, tio.Color = true, false
	}
	if o.AnswerAfter = *answerAfter; o.AnswerAfter <= 0 {
		o.AnswerAfter = -1 // at once: subscriber.GroupConfig's negative
	}
	o.SettleToken(getenv)
	rest, err = cliflag.ExecEndpoint(execArgv, rest, connect)
	if err != nil {
		return nil, err
	}
	switch {
	case len(rest) > 0 && connect != "":
		return nil, fmt.Errorf("give the endpoint once: as an argument or with --connect")
	case connect != "":
		rest = []string{connect}
	}
	if err := o.readAgents(rest); err != nil { // needs o.Local
		return nil, err
	}
	if agents != "" && o.Demo { // --demo --agents N: the demo's (demo.go)
		if o.DemoAgents, err = demoAgentCount(agents); err != nil {
			return nil, cliflag.Usage(err)
		}
		if o.DemoGRPC || o.DemoQuirks || scenario != "" {
			return nil, cliflag.Usagef("--demo --agents N runs the built-in demo agents, each with its own scenarios and binding: " +
				"it does not go with --demo-grpc, --demo-quirks or --demo-scenarios")
		}
	} else if agents != "" {
		if err := o.readAgentsFile(agents); err != nil {
			return nil, err
		}
	}
	switch {
	case o.Demo && o.Local:
		return nil, fmt.Errorf("--local and --demo cannot be combined: the demo runs its own agents")
	case o.Demo == (o.Endpoint != "") && !o.Local:
		return nil, fmt.Errorf("give an ENDPOINT or --demo (but not both), or --local")
	}
	if scenario != "" {
		o.DemoScenarios = strings.Split(scenario, ",")
	}
	if o.Verbosity, err = session.ParseVerbosity(o.Verbosity); err != nil {
		return nil, fmt.Errorf("--%w", err) // the words "set verbosity" takes
	}
	switch o.AutoReply {
	case "", "reject":
	default:
		return nil, fmt.Errorf("--auto-reply only allows \"reject\": accepting on your behalf is never automatic")
	}
	if o.DemoGRPC && (!o.Demo || o.DemoQuirks) {
		return nil, fmt.Errorf("--demo-grpc goes with --demo, and not with --demo-quirks (deployed producers' quirks are HTTP ones)")
	}
	if o.DemoSpeed < 0 {
		return nil, fmt.Errorf("--demo-speed must not be negative")
	}
	if o.Demo {
		if _, err := demo.Pick(o.DemoScenarios); err != nil {
			return nil, cliflag.Usage(err) // names one that is not there
		}
	}
	if err := o.checkTUI(); err != nil { // before a demo or a key is made
		return nil, err
	}
	if err := o.Sinks.check(); err != nil {
		return nil, err
	}
	if err := finishTerms(o, getenv); err != nil {
		return nil, err
	}
	if err := o.settleAgentsFile(); err != nil {
		return nil, err
	}
	if err := o.Decide.load(); err != nil {
		return nil, err
	}
	if err := checkManifestFlags(o); err != nil {
		return nil, err
	}
	return o, nil
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	cliflag.PrintHelp(w, usageText, fs)
	fmt.Fprint(w, `
Environment:
  AAEP_TOKEN   bearer token, when --token is not given
  NO_COLOR, TERM=dumb, ACCESSIBLE=1
               plain output (also automatic when stdout is not a terminal)

Exit status: 0 when the stream ended or you quit, 1 when the producer could
not be reached, refused the subscription, or its manifest did not verify under
--require-signed-manifest (with several agents: when any of them did), 2 for a
usage error (a flag, a file that does not
exist, an endpoint that names nothing, --tui without a terminal, …).

See docs/transports.md (TLS, --exec) and docs/manifests.md.
`)
}
