package main

// manifestcmd.go: "aaep-listen manifest ENDPOINT": subscribe just long
// enough to learn where the producer's manifest is, then say what it claims
// and whether it verified.

import (
	"context"
	"errors"
	"flag"
	"io"
	"time"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

const manifestUsage = `Usage: aaep-listen manifest [flags] ENDPOINT
       aaep-listen manifest [flags] --exec COMMAND [ARGS…]

Subscribes to the producer, reads its answer, closes the subscription, then
fetches the producer's manifest (inline in its answer, at the manifest_uri it
gives, or at /.well-known/aaep-manifest.json) and says what it claims and
whether its signature verified, and with which key.

Exit status: 0 when the manifest is signed and verified, 1 when it is not
(unsigned, refused, or not found), 2 for a usage error.

Flags:
`

func runManifest(ctx context.Context, args []string, tio *term.IO, getenv func(string) string) int {
	o := &options{IO: tio, Now: time.Now, Getenv: getenv}
	var asJSON bool
	fs := flag.NewFlagSet("aaep-listen manifest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&asJSON, "json", false, "write the answer as one JSON object")
	o.Conn.Register(fs, cliflag.ConnLayout|cliflag.ConnWSNoSubprotocol|cliflag.ConnTLS)
	addManifestKeyFlags(fs, &o.Manifest)
	args, execArgv := cliflag.CutExec(args)
	rest, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		cliflag.PrintHelp(tio.Out, manifestUsage, fs)
		return 0
	}
	if err != nil {
		tio.Eprintf("aaep-listen manifest: %v\n", err)
		return cliflag.ExitUsage
	}
	rest, err = cliflag.ExecEndpoint(execArgv, rest, "")
	if err == nil && len(rest) != 1 {
		err = errors.New("give one ENDPOINT")
	}
	if err == nil && !transport.BindingOf(rest[0]).Answers() {
		err = errors.New("a file holds no manifest: give a producer's endpoint")
	}
	if err != nil {
		return cliflag.Refuse(tio.ErrOut, "aaep-listen manifest", err)
	}
	o.Endpoint = rest[0]
	o.SettleToken(getenv)
	if err := loadSecurity(o); err != nil {
		tio.Eprintf("aaep-listen manifest: %v\n", err)
		return 1
	}
	rep, note := subscriber.InspectManifest(ctx, o.Endpoint, o.Transport(), session.Identity{ID: "aaep-listen-manifest", Name: "aaep-listen", Version: version}, o.manifestConfig())
	if asJSON {
		_ = cliflag.WriteJSON(tio.Out, rep, false) // the producer's strings sanitized; plain values always marshal
	} else {
		if note != "" {
			tio.Printf("%s\n", note)
		}
		writeManifest(tio.Out, rep)
	}
	if !rep.Verified {
		return 1
	}
	return 0
}

// writeManifest prints the report in plain lines.
func writeManifest(w io.Writer, r subscriber.ManifestReport) {
	for _, l := range r.Lines() {
		textout.Fprintf(w, "%s\n", l)
	}
}
