// check.go: aaep-replay check.

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

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

// maxReported bounds the problems kept per file for --json; all are counted.
const maxReported = 100000

type checkFile struct {
	File       string               `json:"file"`
	Kind       string               `json:"kind,omitempty"`
	Messages   int                  `json:"messages"`
	Violations int                  `json:"violations"`
	Warnings   int                  `json:"warnings"`
	Problems   []capture.Violation  `json:"problems"`
	Omitted    int                  `json:"omitted,omitempty"`
	Notes      []capture.Diagnostic `json:"notes,omitempty"`
	Unreadable string               `json:"unreadable,omitempty"`
	// Connections are those of a capture of several (format version 2):
	// each problem's "connection" is one of their IDs.
	Connections []capture.Connection `json:"connections,omitempty"`
	problemsOut io.Writer
	nameOf      func(id string) string // names a connection in text lines
}

func runCheck(args []string, tio *term.IO) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "write one JSON document with every file's problems instead of lines")
	schemaOnly := fs.Bool("schema-only", false, "check each message on its own (any AAEP message); also accepts a single JSON document or a JSON array")
	files, err := parse(fs, args, checkUsage, tio.Out)
	if err != nil {
		return codeOf(err), err
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
	var results []*checkFile
	code := exitOK
	for _, f := range files {
		r := &checkFile{File: f}
		if !*asJSON {
			r.problemsOut = out
		}
		checkOne(r, capture.CheckOptions{SchemaOnly: *schemaOnly, Schemas: schemas})
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
			r.fold()
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Files []*checkFile `json:"files"`
		}{results}); err != nil {
			return exitViolations, fmt.Errorf("write the report: %w", err)
		}
	}
	return code, nil
}

// fold makes every string of r's JSON record one sanitized line
// (protocol.Line): a capture's session IDs, event IDs, connection labels and
// endpoints are a file's bytes, and a consumer such as `jq -r` prints a
// decoded "\n" as a line break.
func (r *checkFile) fold() {
	r.File, r.Unreadable = protocol.Line(r.File), protocol.Line(r.Unreadable)
	for i := range r.Problems {
		v := &r.Problems[i]
		v.Conn, v.Session, v.EventID = protocol.Line(v.Conn), protocol.Line(v.Session), protocol.Line(v.EventID)
		v.Rule, v.Section, v.Message = protocol.Line(v.Rule), protocol.Line(v.Section), protocol.Line(v.Message)
		for j, p := range v.Pointers {
			v.Pointers[j] = protocol.Line(p)
		}
	}
	for i := range r.Notes {
		r.Notes[i].Message = protocol.Line(r.Notes[i].Message)
	}
	for i := range r.Connections {
		c := &r.Connections[i]
		c.ID, c.Label, c.Endpoint = protocol.Line(c.ID), protocol.Line(c.Label), protocol.Line(c.Endpoint)
		c.Transport, c.Subscriber = protocol.Line(c.Transport), protocol.Line(c.Subscriber)
	}
}

// checkOne checks one file into r.
func checkOne(r *checkFile, o capture.CheckOptions) {
	c, err := capture.NewChecker(o)
	if err != nil {
		r.Unreadable = err.Error()
		return
	}
	rd, err := capture.Open(r.File)
	if err != nil {
		r.Unreadable = err.Error()
		return
	}
	defer rd.Close()
	if h := rd.Header(); h != nil {
		r.Connections = h.Connections
	}
	r.nameOf = rd.ConnName
	if o.SchemaOnly {
		// Each message on its own, as it is read: none is kept.
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				r.Unreadable = fmt.Sprintf("%s: %v", r.File, err)
				return
			}
			r.step(c.Check(rec))
		}
	} else {
		r.Kind = rd.Kind()
		if err := c.CheckAll(rd, r.step); err != nil {
			r.Unreadable = fmt.Sprintf("%s: %v", r.File, err)
			return
		}
		for _, v := range c.Finish() {
			r.add(v)
		}
	}
	notes, more := rd.Diagnostics()
	r.notes(notes, more)
	r.nothingRead(len(notes) + more)
}

// nothingRead marks the file unreadable when not one message could be read
// from it although it was not empty.
func (r *checkFile) nothingRead(skipped int) {
	if r.Messages == 0 && skipped > 0 {
		r.Unreadable = fmt.Sprintf("%s: no AAEP message could be read from it (%d %s skipped)", r.File, skipped, prose.Plural(skipped, "line", "lines"))
	}
}

func (r *checkFile) step(st capture.Step) {
	if !st.Record.Note {
		r.Messages++
	}
	for _, v := range st.Violations {
		r.add(v)
	}
}

func (r *checkFile) add(v capture.Violation) {
	if v.Severity == capture.SeverityViolation {
		r.Violations++
	} else {
		r.Warnings++
	}
	if r.problemsOut != nil {
		if v.Conn != "" && r.nameOf != nil {
			v.Conn = r.nameOf(v.Conn) // the line names the agent as the user does
		}
		textout.Fprintf(r.problemsOut, "%s: %s\n", r.File, v)
		return
	}
	if len(r.Problems) < maxReported {
		r.Problems = append(r.Problems, v)
	} else {
		r.Omitted++
	}
}

func (r *checkFile) notes(ds []capture.Diagnostic, more int) {
	r.Notes = ds
	if r.problemsOut == nil {
		return
	}
	for _, d := range ds {
		textout.Fprintf(r.problemsOut, "%s: line %d: note: %s\n", r.File, d.Line, d.Message)
	}
	if more > 0 {
		textout.Fprintf(r.problemsOut, "%s: %d more notes on reading were left out.\n", r.File, more)
	}
}

// openInput opens a file, or standard input for "-".
func openInput(path string) (io.Reader, func(), error) {
	if path == "-" {
		return os.Stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
