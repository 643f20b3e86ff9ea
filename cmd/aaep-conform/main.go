// Command aaep-conform tests AAEP producers and subscribers live against
// the conformance requirements of spec chapter 09, writes JSON and HTML
// reports, signs what it found as receipts, and verifies receipts.
package main

import (
	"context"
	"time"

	"github.com/aaep-term/aaep-term/cmd/internal/buildinfo"
	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
)

// Exit codes.
const (
	exitConforming = 0 // every test of the level passed; verify: the receipt holds
	exitNot        = 1 // a test failed or was skipped; verify: the receipt is refused
	exitCannot     = 2 // the suite could not run: usage, unreachable, unreadable
)

const program = "aaep-conform"

const usageText = `Usage: aaep-conform COMMAND [flags] …

Tests an AAEP implementation live against the conformance requirements of
the spec (chapter 09), at Level 1 (notification), 2 (interactive) or 3
(negotiated); writes what it found as plain lines, a JSON report, an
accessible HTML report and a signed receipt that anyone can verify.

Commands:
  producer ENDPOINT   test a producer: subscribe to it, drive sessions and
                      check every producer requirement of the level
  subscriber          test a subscriber: act as a scripted producer on a
                      loopback port (or run the subscriber with --exec) and
                      check what a producer can observe of it
  verify RECEIPT      check a signed receipt: signature, schema, expiry and
                      suite; --recheck re-runs some of its tests live
  key                 make a key pair to sign receipts (ES256 or EdDSA)
  target              serve this repository's producer playing the
                      conformance target scenarios, to reproduce our claim
  help                this text
  version             the version, commit, Go version and AAEP version
                      (also --version)

Examples:
  aaep-conform producer http://127.0.0.1:8080/aaep --level 3 --answer-prompts
  aaep-conform producer https://agent.example/aaep --level 2 --answer-prompts \
      --trigger 'POST https://agent.example/sessions {"user_message":"hi"}' \
      --json report.json --html report.html
  aaep-conform subscriber --level 3 --exec 'aaep-listen {endpoint}'
  aaep-conform key --out receipt-key.pem
  aaep-conform target --addr 127.0.0.1:8700   (our producer, to reproduce our claim)
  aaep-conform producer ws://127.0.0.1:8080/aaep --level 3 --answer-prompts \
      --receipt agent.receipt --sign-key receipt-key.pem
  aaep-conform verify agent.receipt --key receipt-key.pem.pub --recheck --answer-prompts

Run aaep-conform COMMAND --help for the flags of a command.

Exit status: 0 when every test of the level passed (verify: the receipt
holds), 1 when one failed or was skipped (verify: the receipt is refused, or
the recheck differs), 2 when the suite could not run (a usage error, an
implementation that cannot be reached, a file that cannot be read).
`

// deps are what a run reaches outside itself; tests replace them.
type deps struct {
	io             *term.IO
	now            func() time.Time
	getenv         func(string) string
	testProducer   func(context.Context, conform.ProducerOptions) (*conform.Report, error)
	testSubscriber func(context.Context, conform.SubscriberOptions) (*conform.Report, error)
	producerTests  func() []conform.Test // the catalogue a recheck may re-run
	targetReady    func(targetAt)        // if not nil, told where aaep-conform target serves
	info           buildinfo.Info
}

func systemDeps(tio *term.IO, getenv func(string) string) *deps {
	return &deps{
		io:             tio,
		now:            time.Now,
		getenv:         getenv,
		testProducer:   conform.TestProducer,
		testSubscriber: conform.TestSubscriber,
		producerTests:  conform.ProducerTests,
		info:           buildinfo.Read(program),
	}
}

// suite is this build of the suite, as reports and receipts name it.
func (d *deps) suite() conform.Suite {
	return conform.Suite{
		Name:        program,
		Version:     suiteVersion(d.info),
		AAEPVersion: protocol.Version,
		Catalogue:   conform.CatalogueHash(),
	}
}

// suiteVersion is this build's version as a claim names it
// (conform.SuiteVersion). A build that recorded neither a version nor a
// commit (go build -buildvcs=false, not through scripts/build) is
// conform.Unversioned, and its claims say so.
func suiteVersion(i buildinfo.Info) string {
	return conform.SuiteVersion(i.Version, i.Commit, i.Modified)
}

// run carries out one command line and returns the exit code.
func run(ctx context.Context, args []string, d *deps) int {
	if buildinfo.Requested(args) {
		d.info.Print(d.io)
		return exitConforming
	}
	cmds := &cliflag.Commands{Program: program, Usage: usageText, Failed: exitCannot, List: []cliflag.Command{
		{Name: "producer", Run: func(a []string) (int, error) { return runProducer(ctx, a, d) }},
		{Name: "subscriber", Run: func(a []string) (int, error) { return runSubscriber(ctx, a, d) }},
		{Name: "verify", Run: func(a []string) (int, error) { return runVerify(ctx, a, d) }},
		{Name: "key", Run: func(a []string) (int, error) { return runKey(a, d) }},
		{Name: "target", Run: func(a []string) (int, error) { return runTarget(ctx, a, d) }},
	}}
	return cmds.Run(args, d.io.Out, d.io.ErrOut)
}
