// trace.go: aaep-replay trace, and the --input FILE --visualize form.

package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/aaep-term/aaep-term/internal/cliflag"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/term"
)

const traceUsage = `Usage: aaep-replay trace [--html OUT] FILE
       aaep-replay --input FILE --visualize [--html OUT]

Writes the state-machine trace of every session in the capture (spec
appendix A): each step on its own line, with its line number, time since the
session began, what happened and the state it led to, and every violation
at the exact step where it happened. --html also writes a self-contained HTML
report (headings, a table per session, no external files).

Exit status: 0 when the trace was written (even with violations; use check to
fail on them), 2 when the input cannot be read.

Flags:
`

func runTrace(args []string, tio *term.IO, inputForm bool) (int, error) {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	html := fs.String("html", "", "also write the trace as an HTML report to `OUT`")
	input := fs.String("input", "", "the capture `FILE` to trace (same as the argument)")
	visualize := fs.Bool("visualize", false, "draw the state-machine trace (the implementer's guide form)")
	files, err := cliflag.ParseHelp(fs, args, traceUsage, tio.Out)
	if err != nil {
		return exitUnreadable, err
	}
	if *input != "" {
		files = append(files, *input)
	}
	if inputForm && !*visualize {
		return exitUnreadable, cliflag.Usagef("with --input, say what to do: --visualize (or use a command: check, trace, play)")
	}
	if len(files) != 1 {
		return exitUnreadable, cliflag.Usagef("give exactly one FILE to trace, got %d", len(files))
	}
	rd, err := capture.Open(files[0])
	if err != nil {
		return exitUnreadable, err
	}
	defer rd.Close()
	t, err := capture.BuildTrace(rd, files[0], capture.CheckOptions{})
	if err != nil {
		return exitUnreadable, err
	}
	if err := t.WriteText(tio.Out); err != nil {
		return exitViolations, fmt.Errorf("write the trace: %w", err)
	}
	if *html != "" {
		if err := writeHTML(t, *html); err != nil {
			return exitViolations, err
		}
		tio.Eprintf("aaep-replay: wrote the HTML report to %s.\n", *html)
	}
	return exitOK, nil
}

func writeHTML(t *capture.Trace, path string) error {
	_, err := writeTo(path, nil, func(w io.Writer) (int, error) { return exitOK, t.WriteHTML(w) })
	if err != nil {
		return fmt.Errorf("write the HTML report: %w", err)
	}
	return nil
}
