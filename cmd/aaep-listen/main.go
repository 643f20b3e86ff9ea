// Command aaep-listen connects to an AAEP producer and announces what its
// agents do, as plain lines a screen reader can follow, and answers its prompts.
package main

import (
	"context"
	"errors"
	"os"

	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
)

// version is this build's version, sent in subscription requests.
const version = "0.1.0"

func main() { cliflag.Main(run) }

// run parses args and listens; it returns the process exit code.
func run(ctx context.Context, args []string) int {
	io := term.System(false)
	if buildinfo.Answer("aaep-listen", args, io) {
		return 0
	}
	if len(args) > 0 && args[0] == "key" {
		return runKey(args[1:], io, os.Getenv)
	}
	if len(args) > 0 && args[0] == "manifest" {
		return runManifest(ctx, args[1:], io, os.Getenv)
	}
	opts, err := parseFlags(args, io, os.Getenv)
	switch {
	case errors.Is(err, errHelp):
		return 0
	case err != nil:
		return cliflag.Refuse(io.ErrOut, "aaep-listen", err)
	}
	if err := loadSecurity(opts); err != nil { // manifest keys and TLS files, before a key is made
		io.Eprintf("aaep-listen: %v\n", err)
		return cliflag.ExitCode(err)
	}
	if err := loadSignKey(opts); err != nil {
		io.Eprintf("aaep-listen: %v\n", err)
		return cliflag.ExitCode(err)
	}
	if err := listen(ctx, opts); err != nil {
		io.Eprintf("aaep-listen: %v\n", err)
		if hint := cliflag.Hint(err); hint != "" {
			io.Eprintf("%s\n", hint)
		}
		return cliflag.ExitCode(err) // 2 when the error is in the command line (cliflag.Usage)
	}
	if opts.refused {
		return 1
	}
	return 0
}

// loadSecurity reads the trusted manifest keys and the TLS files.
func loadSecurity(o *options) error {
	if err := o.Manifest.load(o.Getenv); err != nil {
		return err
	}
	return o.TLS.Load()
}
