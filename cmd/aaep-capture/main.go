// Command aaep-capture records a live AAEP session to a file: every message
// received (and sent), with its receive time, in the .aaep format or plain JSONL.
package main

import (
	"context"
	"errors"

	"github.com/aaep-term/aaep-term/capture/record"
	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

func main() {
	cliflag.Main(func(ctx context.Context, args []string) int { return run(ctx, args, term.System(false)) })
}

// run parses args and records; it returns the process exit code.
func run(ctx context.Context, args []string, tio *term.IO) int {
	if buildinfo.Answer("aaep-capture", args, tio) {
		return 0
	}
	o, err := parseFlags(args, tio)
	if err == nil {
		err = o.Check() // before anything is sent, or the output file made
	}
	switch {
	case errors.Is(err, errHelp):
		return 0
	case err != nil:
		tio.Eprintf("aaep-capture: %v\nRun aaep-capture --help for usage.\n", err)
		return 2
	}
	if err := record.Run(ctx, o); err != nil {
		// An error may carry a producer's words (an HTTP error body).
		tio.Eprintf("aaep-capture: %s\n", protocol.Line(err.Error()))
		if hint := cliflag.Hint(err); hint != "" {
			tio.Eprintf("%s\n", hint)
		}
		return 1
	}
	return 0
}
