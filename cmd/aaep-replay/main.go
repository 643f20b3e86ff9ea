// Command aaep-replay reads AAEP captures: it checks them for protocol
// violations, draws their state-machine trace, and plays them back.
package main

import (
	"context"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/session"
)

// Exit codes.
const (
	exitOK         = 0
	exitViolations = 1 // check found violations; other commands: failed
	exitUnreadable = 2 // usage error, or input that cannot be read
)

const usageText = `Usage: aaep-replay COMMAND [flags] FILE…
       aaep-replay --input FILE --visualize [--html OUT]

Reads AAEP captures: .aaep files written by aaep-capture, plain JSON lines of
events (the format other AAEP tools write), either of them gzip-compressed.
The kind is detected from the content. FILE may be - for standard input.

Commands:
  check FILE…    check every message against the AAEP schemas and every
                 sequencing rule; one line per problem with its line number,
                 session, rule and spec section
  trace FILE     the state-machine trace (spec appendix A) of every session,
                 as plain text; --html OUT also writes an HTML report
  play FILE      announce the capture as aaep-listen would, paced by the
                 recorded times (--speed)
  serve FILE     serve the capture as a producer over HTTP (both layouts),
                 paced by the recorded times, printing the replies it gets
  export FILE    write the capture as plain JSON lines (--format jsonl), a
                 readable transcript (text) or the HTML report (html)
  stats FILE     figures per session and per agent: events by type, tool
                 calls and latency, confirmations and time to decide,
                 streamed output, violations (--json for one document)
  help           this text
  version        the version, commit, Go version and AAEP version
                 (also --version)

--input FILE --visualize is the form the AAEP implementer's guide uses; it is
the same as trace FILE.

Examples:
  aaep-replay check session.aaep other.jsonl.gz
  aaep-replay check --schema-only event.json
  aaep-replay --input session.aaep --visualize --html report.html
  aaep-replay play --speed 4 session.aaep
  aaep-replay export --format jsonl session.aaep > events.jsonl
  aaep-replay stats --json session.aaep

Run aaep-replay COMMAND --help for the flags of a command.

Exit status: 0 when all is well, 1 when check found a violation (or a
command failed), 2 for a usage error or input that cannot be read.
`

func main() {
	cliflag.Main(func(ctx context.Context, args []string) int { return run(ctx, args, term.System(false)) })
}

// run carries out one command line and returns the exit code.
func run(ctx context.Context, args []string, tio *term.IO) int {
	if buildinfo.Answer("aaep-replay", args, tio) {
		return exitOK
	}
	cmds := &cliflag.Commands{Program: "aaep-replay", Usage: usageText, Failed: exitViolations, List: []cliflag.Command{
		{Name: "check", Run: func(a []string) (int, error) { return runCheck(a, tio) }},
		{Name: "trace", Run: func(a []string) (int, error) { return runTrace(a, tio, false) }},
		{Name: "play", Run: func(a []string) (int, error) { return runPlay(ctx, a, tio) }},
		{Name: "serve", Run: func(a []string) (int, error) { return runServe(ctx, a, tio) }},
		{Name: "export", Run: func(a []string) (int, error) { return runExport(ctx, a, tio) }},
		{Name: "stats", Run: func(a []string) (int, error) { return runStats(a, tio) }},
	}, Flags: func(a []string) (int, error) { return runTrace(a, tio, true) }} // aaep-replay --input FILE --visualize
	return cmds.Run(args, tio.Out, tio.ErrOut)
}

// openOne opens the one FILE a command takes; what is the command's verb.
// Its errors are all exit code 2.
func openOne(files []string, what string) (*capture.Reader, error) {
	if len(files) != 1 {
		return nil, cliflag.Usagef("give exactly one FILE to %s, got %d", what, len(files))
	}
	return capture.Open(files[0])
}

// checkVerbosity reads --verbosity *v as aaep-listen does (verbose is
// detailed) and leaves the spec's word in *v.
func checkVerbosity(v *string) error {
	w, err := session.ParseVerbosity(*v)
	if err != nil {
		return cliflag.Usagef("--%v", err)
	}
	*v = w
	return nil
}
