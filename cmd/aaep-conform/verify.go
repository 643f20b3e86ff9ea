// verify.go: aaep-conform verify.

package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/aaep-term/aaep-term/conform"
	"github.com/aaep-term/aaep-term/internal/cliflag"
)

const verifyUsage = `Usage: aaep-conform verify RECEIPT (--key FILE | --trusted-keys DIR) [--report FILE] [--recheck] [--strict] [--json]

Checks a receipt written by aaep-conform --receipt: that it is signed, with
ES256 or EdDSA, by the key you trust (--key, a PEM or JWK public key) or by
one of the keys you trust (--trusted-keys, a directory of .pem, .pub, .jwk
or .json files, matched by the receipt's key ID); that its content follows
the receipt schema (docs/schemas/conform-receipt.schema.json) and agrees with
itself; and that it has not expired. An unsigned receipt (alg none), one
signed with a shared secret (HMAC) or carrying a placeholder signature is
refused. A receipt from a newer aaep-conform, or whose test catalogue we do
not know, is noted (refused with --strict).

With --report FILE, the JSON report of the run is checked to hold the very
results the receipt was signed over (their SHA-256).

With --recheck, a random part of the receipt's tests is run again against
the producer it names (or --endpoint), and each outcome, listed in random
order, is compared with the receipt's. A recheck reaches a producer over the
network or a Unix socket only: never a command or a file a receipt names.

Exit status: 0 when the receipt holds (and the report matches, and the
recheck agrees), 1 when it is refused (or the report or the recheck differs), 2 when it cannot be checked (a usage error,
an unreadable file, a producer that cannot be reached).

Flags:
`

func runVerify(ctx context.Context, args []string, d *deps) (int, error) {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	var (
		keyFile, keysDir, endpoint      string
		reportFile                      string
		recheck, asJSON, strict, answer bool
		count                           int
		conn                            = cliflag.Conn{HelpPrefix: "with --recheck, "}
	)
	fs.StringVar(&keyFile, "key", "", "the public key `FILE` you trust to have signed it (PEM or JWK)")
	fs.StringVar(&keysDir, "trusted-keys", "", "a `DIR` of public keys you trust; the receipt's key ID picks one")
	fs.StringVar(&reportFile, "report", "", "also check that the JSON report `FILE` holds the very results the receipt was signed over")
	fs.BoolVar(&recheck, "recheck", false, "re-run a random part of the receipt's tests against the live producer and compare")
	fs.BoolVar(&answer, "answer-prompts", false, "with --recheck of a Level 2 or 3 receipt, answer the producer's prompts for real, as its tests must (required then)")
	fs.IntVar(&count, "count", 0, "with --recheck, how many tests to re-run (default about a third)")
	fs.StringVar(&endpoint, "endpoint", "", "with --recheck, test this `ENDPOINT` instead of the one the receipt names")
	fs.BoolVar(&strict, "strict", false, "refuse a receipt made by a newer aaep-conform or with a test catalogue we do not know, instead of noting it")
	fs.BoolVar(&asJSON, "json", false, "write the verification report as one JSON document instead of lines")
	conn.Register(fs, cliflag.ConnTLS)
	rest, err := cliflag.ParseHelp(fs, args, verifyUsage, d.io.Out)
	if err != nil {
		return exitCannot, err
	}
	switch {
	case len(rest) != 1:
		return exitCannot, cliflag.Usagef("give exactly one RECEIPT file, got %d", len(rest))
	case (keyFile == "") == (keysDir == ""):
		return exitCannot, cliflag.Usagef("say which keys you trust: --key FILE or --trusted-keys DIR (one of them)")
	case !recheck && (endpoint != "" || count != 0 || answer):
		return exitCannot, cliflag.Usagef("--endpoint, --count and --answer-prompts go with --recheck")
	}
	if err := conn.Load(d.getenv); err != nil {
		return exitCannot, err
	}
	out, err := conform.CheckReceiptFile(rest[0], conform.CheckOptions{
		KeyFile: keyFile, KeysDir: keysDir, Report: reportFile, Strict: strict,
		Now: d.now(), Suite: d.suite(),
		LeftOut: func(err error) { d.io.Eprintf("aaep-conform verify: left out of the trusted keys: %v\n", err) },
	})
	if err != nil {
		return exitCannot, err
	}
	if !out.Valid {
		return exitNot, printVerify(out, asJSON, d)
	}
	code := exitConforming
	if out.ReportMismatch != "" {
		code = exitNot
	}
	if recheck && out.Receipt.LevelTested >= 2 {
		if !answer {
			printVerify(out, asJSON, d)
			return exitCannot, cliflag.Usagef("--recheck: %s Rechecking a Level %d receipt answers them, so it needs --answer-prompts to say you mean it.", answersPrompts, out.Receipt.LevelTested)
		}
		d.io.Eprintf("%s\n", answersPrompts)
	}
	if recheck {
		rc, err := conform.RecheckReceipt(ctx, out.Receipt, conform.RecheckOptions{
			Producer: conform.ProducerOptions{
				Fast:      out.Receipt.Fast,
				Transport: conn.Transport(),
			},
			Endpoint:  endpoint,
			Count:     count,
			Run:       d.testProducer,
			Catalogue: d.producerTests(),
		})
		if err != nil {
			printVerify(out, asJSON, d)
			return exitCannot, fmt.Errorf("recheck: %w", err)
		}
		out.Recheck = rc
		if !rc.Agree {
			code = exitNot
		}
	}
	return code, printVerify(out, asJSON, d)
}

// printVerify prints the verification report: lines, or --json.
func printVerify(r *conform.VerifyReport, asJSON bool, d *deps) error {
	if !asJSON {
		r.WriteText(d.io.Out)
		return nil
	}
	// Every string sanitized as a line: a receipt's names are whatever
	// its maker wrote, and a valid signature cleans nothing.
	return cliflag.WriteJSON(d.io.Out, r, false)
}
