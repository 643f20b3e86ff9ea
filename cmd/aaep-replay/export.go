// export.go: aaep-replay export and aaep-replay stats.

package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aaep-term/aaep-term/internal/cliflag"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/internal/safefile"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/line"
)

const exportUsage = `Usage: aaep-replay export --format jsonl|text|html [--output OUT] [--no-time] [--config FILE] FILE

Writes a capture in another form, to standard output or --output OUT:
  jsonl   the received events, one per line, with no header, no times and
          no handshake messages or replies:
          the plain format other AAEP tools read
  text    a readable transcript: what aaep-listen would have said, one plain
          line per announcement, with the recorded times (none with
          --no-time or "timestamps": false in the settings file)
  html    the HTML report of the state-machine trace (the same as
          trace --html), self-contained

Flags:
`

func runExport(ctx context.Context, args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "", "what to write: jsonl, text or html")
	output := fs.String("output", "-", "the `FILE` to write; - is standard output")
	fs.StringVar(output, "o", "-", "short for --output")
	verbosity := fs.String("verbosity", "normal", "for text: how much to say: terse, normal or detailed")
	times := addTimeFlags(fs)
	files, err := cliflag.ParseHelp(fs, args, exportUsage, tio.Out)
	if err != nil {
		return exitUnreadable, err
	}
	noTime, err := times.off(os.Getenv)
	if err != nil {
		return exitUnreadable, cliflag.Usagef("%v", err)
	}
	if *format != "jsonl" && *format != "text" && *format != "html" {
		return exitUnreadable, cliflag.Usagef("--format must be jsonl, text or html, not %q", *format)
	}
	if err := checkVerbosity(verbosity); err != nil {
		return exitUnreadable, err
	}
	rd, err := openOne(files, "export")
	if err != nil {
		return exitUnreadable, err
	}
	defer rd.Close()
	return writeTo(*output, tio.Out, func(w io.Writer) (int, error) {
		switch *format {
		case "jsonl":
			if err := capture.ExportJSONL(rd, w); err != nil {
				return exitUnreadable, err
			}
			return exitOK, nil
		case "html":
			t, err := capture.BuildTrace(rd, files[0], capture.CheckOptions{})
			if err != nil {
				return exitUnreadable, err
			}
			return exitOK, t.WriteHTML(w)
		}
		out := line.NewWriter(w, tio.ErrOut, line.WriterOptions{Location: time.UTC, NoTime: noTime, Replay: true})
		p := console.NewPlayer(console.PlayConfig{Name: "aaep-replay", ErrOut: tio.ErrOut, Verbosity: *verbosity}, out)
		if err := p.Play(ctx, rd, 0, 0); err != nil {
			return exitUnreadable, err
		}
		return exitOK, nil
	})
}

// writeTo runs fn on the file at path ("-" is stdout, unless stdout is
// nil), buffered, and reports a failed write or close.
func writeTo(path string, stdout io.Writer, fn func(io.Writer) (int, error)) (int, error) {
	var dst io.Writer = stdout
	var f *os.File
	if path != "-" || stdout == nil {
		var err error
		if f, err = safefile.Create(path); err != nil {
			return exitViolations, fmt.Errorf("create the output: %w", err)
		}
		dst = f
	}
	bw := bufio.NewWriter(dst)
	code, err := fn(bw)
	if ferr := bw.Flush(); err == nil && ferr != nil {
		code, err = exitViolations, fmt.Errorf("write %s: %w", path, ferr)
	}
	if f != nil {
		if cerr := f.Close(); err == nil && cerr != nil {
			code, err = exitViolations, fmt.Errorf("write %s: %w", path, cerr)
		}
	}
	return code, err
}

const statsUsage = `Usage: aaep-replay stats [--json] FILE

Counts what a capture holds, per session, per agent and in all: duration,
events by type, tool calls with their success, error and timeout rates and
latency percentiles, confirmations asked, accepted, rejected, timed out and
unanswered with the time taken to decide, questions, streamed output size,
and the violations and warnings that check finds. Plain text, one fact per
line; --json writes one JSON document.

Times are receive times when the capture has them, else the events'
timestamps. A tool's latency is its duration_ms when given, else the time
from invocation to completion.

Flags:
`

func runStats(args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "write one JSON document instead of lines")
	files, err := cliflag.ParseHelp(fs, args, statsUsage, tio.Out)
	if err != nil {
		return exitUnreadable, err
	}
	rd, err := openOne(files, "count")
	if err != nil {
		return exitUnreadable, err
	}
	defer rd.Close()
	st, err := capture.BuildStats(rd, files[0], capture.CheckOptions{})
	if err != nil {
		return exitUnreadable, err
	}
	if *asJSON {
		err = cliflag.WriteJSON(tio.Out, st, true) // every string from the capture sanitized
	} else {
		err = st.WriteText(tio.Out)
	}
	if err != nil {
		return exitViolations, fmt.Errorf("write the figures: %w", err)
	}
	return exitOK, nil
}
