// Command aaep-capture records a live AAEP session to a file: every message
// received (and sent), with its receive time, in the .aaep format or plain JSONL.
package main

import (
	"context"
	"errors"
	"os"

	"github.com/aaep-term/aaep-term/capture/record"
	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

func main() {
	cliflag.Main(func(ctx context.Context, args []string) int { return run(ctx, args, term.System(false)) })
}

// run parses args and records; it returns the process exit code.
func run(ctx context.Context, args []string, tio *term.IO) int {
	if buildinfo.Requested(args) {
		buildinfo.Read("aaep-capture").Print(tio)
		return 0
	}
	o, err := parseFlags(args, tio)
	for i := 0; err == nil && i < len(o.Agents); i++ {
		err = transport.CheckEndpoint(o.Agents[i].Endpoint) // before the output file is made
	}
	switch {
	case errors.Is(err, errHelp):
		return 0
	case err != nil:
		tio.Eprintf("aaep-capture: %v\nRun aaep-capture --help for usage.\n", err)
		return 2
	}
	if err := record.Run(ctx, o.recording(os.Getenv)); err != nil {
		// An error may carry a producer's words (an HTTP error body).
		tio.Eprintf("aaep-capture: %s\n", protocol.Line(err.Error()))
		if hint := cliflag.Hint(err); hint != "" {
			tio.Eprintf("%s\n", hint)
		}
		return 1
	}
	return 0
}
