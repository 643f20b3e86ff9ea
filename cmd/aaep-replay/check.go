// check.go: aaep-replay check.

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/aaep-term/aaep-term/internal/cliflag"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/protocol"
)

const checkUsage = `Usage: aaep-replay check [--json] [--schema-only] FILE…

Checks each message against the AAEP schemas and the sequencing rules of the
spec: session bracketing (4.5.1), tool pairing (4.5.2), confirmation before
the action it guards and a follow-up after a decision (4.5.3), one completion
per output (4.5.4), non-decreasing timestamps (3.2.5) and sequence numbers
(3.4.1), duplicate event IDs (3.2.3), default decisions (6.4.1) and critical
urgency on critical types (4.1.3, 4.4). Each problem is one line: file, line
number, session, violation or warning, rule, spec section, explanation. In a
capture of several agents (aaep-capture with several endpoints) each agent's
connection is checked on its own, and each line names the agent (its label,
else its endpoint): two agents may use the same session and event IDs.

Exit status: 0 when no violation was found (warnings allowed), 1 when one
was, 2 when a file cannot be read.

Flags:
`

func runCheck(args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "write one JSON document with every file's problems instead of lines")
	schemaOnly := fs.Bool("schema-only", false, "check each message on its own (any AAEP message); also accepts a single JSON document or a JSON array")
	files, err := cliflag.ParseHelp(fs, args, checkUsage, tio.Out)
	if err != nil {
		return exitUnreadable, err
	}
	if len(files) == 0 {
		return exitUnreadable, cliflag.Usagef("give at least one FILE to check")
	}
	schemas, err := protocol.NewSchemas()
	if err != nil {
		return exitViolations, fmt.Errorf("compile the schemas: %w", err)
	}
	out := bufio.NewWriter(tio.Out)
	defer out.Flush()
	var results []*capture.FileReport
	code := exitOK
	for _, f := range files {
		var lines io.Writer
		if !*asJSON {
			lines = out
		}
		r := capture.CheckFile(f, capture.CheckOptions{SchemaOnly: *schemaOnly, Schemas: schemas}, lines)
		switch {
		case r.Unreadable != "":
			code = exitUnreadable
			tio.Eprintf("aaep-replay check: %s\n", r.Unreadable)
		case r.Violations > 0 && code == exitOK:
			code = exitViolations
		}
		if !*asJSON && r.Unreadable == "" {
			textout.Fprintf(out, "%s: %d %s checked, %d %s and %d %s.\n", f, r.Messages, prose.Plural(r.Messages, "message", "messages"),
				r.Violations, prose.Plural(r.Violations, "violation", "violations"), r.Warnings, prose.Plural(r.Warnings, "warning", "warnings"))
		}
		results = append(results, r)
	}
	if *asJSON {
		for _, r := range results {
			r.Fold()
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Files []*capture.FileReport `json:"files"`
		}{results}); err != nil {
			return exitViolations, fmt.Errorf("write the report: %w", err)
		}
	}
	return code, nil
}
