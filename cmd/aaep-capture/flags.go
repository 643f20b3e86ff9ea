// flags.go: the command line of aaep-capture.

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/record"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
)

var errHelp = errors.New("help requested")

const usageText = `Usage: aaep-capture --endpoint ENDPOINT --output FILE [flags]
       aaep-capture --output FILE [flags] [LABEL=]ENDPOINT…
       aaep-capture version, --version

Several endpoints are recorded into one capture, one subscription each:
each line of the file says which connection it came from, and the status
lines on standard error name the agent (its LABEL, else its endpoint). One
endpoint failing or ending never stops the others; --duration, --max-events
(counted over all) and Control-C stop them all. LABEL is letters, digits,
'-' and '_', as aaep-listen takes it.

Records what an AAEP producer sends, with the time each message arrived, to
FILE (- for standard output), until the stream ends, --duration passes,
--max-events messages were recorded, or you press Control-C. Every line is
written whole as soon as it arrives, so stopping at any moment loses nothing
already received. Prompts (confirmations, questions) are recorded but never
answered; a producer that takes a subscription is told so (a conforming one
then applies each prompt's default at once; one without a handshake cannot
be told). With --auto-reply reject every confirmation that has not expired is
rejected, once, and the reply is recorded too. However the recording stops,
the subscription is closed (subscription.close, recorded too).

Standard error says when the connection is lost and when it is back, and
explains a refused subscription: what its reason code means, the producer's
message and the wait it asks for (a refusal that allows it is retried).

When standard error is a terminal, a progress line there shows the messages,
sessions and bytes recorded and the rate (rewritten in place; with TERM=dumb
or ACCESSIBLE set, a new line every 30 seconds instead). --no-progress turns
it off; it is never shown when standard error is not a terminal.

ENDPOINT is one of:
` + cliflag.Endpoints + `
Formats (--format):
  aaep    a header line, then one [seconds, direction, message] record per
          line: "i" received, "o" sent (the default)
  jsonl   one received event per line (no handshake or replies), as
          other AAEP tools write it

--filter keeps only some event types: comma-separated patterns such as
tool.*,session.* (a leading - excludes: -progress.*,-output.*). Critical
events (errors, prompts, hand-offs) and messages that are not events are
always recorded. --include TYPES and --exclude TYPES say the same as in
aaep-listen and add to --filter.

--rotate-size N (500K, 10M, 1G) starts a new file before one would grow past
N bytes: FILE, then FILE.1, FILE.2, … in the order recorded. Each file is a
capture of its own, with its own header line.

Secrets are redacted unless --no-redact is given: bearer tokens and
credential-like values are replaced by asterisks of the same length, reply
tokens by a hash of the same length, so the capture still checks and traces.

Examples:
  aaep-capture --endpoint http://localhost:8080 --output session.aaep
  aaep-capture --endpoint http://localhost:8080 -o - --format jsonl --duration 1m
  aaep-capture --endpoint http://localhost:8080 -o big.aaep --rotate-size 100M --filter -progress.*
  aaep-capture -o two.aaep mail=http://127.0.0.1:8081 code=ws://127.0.0.1:8082/aaep/v1/ws
  aaep-replay --input session.aaep --visualize

Flags:
`

// parseFlags reads the command line into the recording it asks for, its
// connection settled from the flags and the environment. What the
// recording cannot do is refused by its Check.
func parseFlags(args []string, tio *term.IO) (*record.Options, error) {
	o := &record.Options{Now: time.Now, Out: tio.Out, Err: tio.ErrOut, Hint: cliflag.Hint}
	fs := flag.NewFlagSet("aaep-capture", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var format, endpoint string
	var conn cliflag.Conn
	fs.StringVar(&endpoint, "endpoint", "", "the producer `ENDPOINT` to record (or give [LABEL=]ENDPOINT… after the flags)")
	fs.StringVar(&o.Output, "output", "", "the `FILE` to write; - is standard output")
	fs.StringVar(&o.Output, "o", "", "short for --output")
	fs.StringVar(&format, "format", "aaep", "file format: aaep or jsonl")
	fs.BoolVar(&o.NoRedact, "no-redact", false, "keep secrets (tokens, credentials) as they were sent")
	fs.DurationVar(&o.Duration, "duration", 0, "stop after this long, e.g. 30s or 5m (default: until the stream ends)")
	fs.IntVar(&o.MaxEvents, "max-events", 0, "stop after recording this many messages (default: no limit)")
	fs.BoolVar(&o.NoHandshake, "no-handshake", false, "passive capture: do not subscribe, read the deployed layout's stream")
	conn.Register(fs, cliflag.ConnLayout|cliflag.ConnTimeout|cliflag.ConnTLS)
	var filter, rotate, autoReply string
	var noProgress bool
	fs.StringVar(&filter, "filter", "", "record only these event types: `GLOBS` such as tool.*,-progress.* (critical events always)")
	var include, exclude string
	fs.StringVar(&include, "include", "", "as aaep-listen: record only these event `TYPES` (globs, comma-separated)")
	fs.StringVar(&exclude, "exclude", "", "as aaep-listen: never record these event `TYPES` (critical events always)")
	fs.StringVar(&rotate, "rotate-size", "", "start a new file (FILE.1, FILE.2, …) before one grows past `SIZE`, e.g. 100M")
	fs.StringVar(&autoReply, "auto-reply", "", "answer confirmations without asking: only \"reject\" is allowed (default: never answer)")
	fs.BoolVar(&noProgress, "no-progress", false, "no progress line on standard error, even on a terminal")
	fs.StringVar(&o.ACPRaw, "acp-raw", "", "also append every raw ACP line of each acp: agent to `FILE` (JSON lines, not redacted; docs/capture.md)")
	rest, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		tio.Usage(usageText)
		fs.SetOutput(tio.Out)
		fs.PrintDefaults()
		tio.Usage(`
Environment:
  AAEP_TOKEN   bearer token, when --token is not given

Exit status: 0 when the recording ended normally, 1 when the producer could
not be reached or refused the subscription, or the file could not be
written, 2 for a usage error.
`)
		return nil, errHelp
	}
	if err == nil {
		err = conn.Load(os.Getenv)
	}
	if err != nil {
		return nil, err
	}
	o.Transport, o.Token, o.Header = conn.Transport(), conn.Token, conn.Header
	if endpoint != "" {
		rest = append([]string{endpoint}, rest...)
	}
	if o.Agents, err = agentspec.ParseAll(rest); err != nil {
		return nil, err
	}
	switch format {
	case "aaep":
	case "jsonl":
		o.JSONL = true
	default:
		return nil, fmt.Errorf("--format must be aaep or jsonl, not %q", format)
	}
	if o.Filter, err = capture.ParseTypeFilter(filterExpr(filter, include, exclude)); err != nil {
		return nil, fmt.Errorf("--%w", err)
	}
	if rotate != "" {
		if o.RotateSize, err = record.ParseSize(rotate); err != nil {
			return nil, fmt.Errorf("--rotate-size: %w", err)
		}
	}
	switch autoReply {
	case "":
	case "reject":
		o.AutoReply = true
	default:
		return nil, fmt.Errorf("--auto-reply only allows \"reject\": accepting on your behalf is never automatic")
	}
	o.Progress = record.ProgressModeFor(tio.ErrTTY, noProgress, os.Getenv)
	return o, nil
}

// filterExpr joins --filter with aaep-listen's --include and --exclude
// into one filter expression: excluded types get their leading "-".
func filterExpr(filter, include, exclude string) string {
	parts := []string{filter, include}
	for _, p := range strings.Split(exclude, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, "-"+p)
		}
	}
	return strings.Trim(strings.Join(parts, ","), ",")
}
