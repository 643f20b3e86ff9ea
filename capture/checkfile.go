// checkfile.go: checking one capture file into a report, as aaep-replay
// check does.

package capture

import (
	"errors"
	"fmt"
	"io"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/textout"
	"github.com/aaep-term/aaep-term/protocol"
)

// MaxReported bounds the problems a FileReport keeps; all are counted.
const MaxReported = 100000

// FileReport is what checking one capture file found: its counts, its
// problems and the notes on reading it, as aaep-replay check reports them.
type FileReport struct {
	File       string       `json:"file"`
	Kind       string       `json:"kind,omitempty"`
	Messages   int          `json:"messages"`
	Violations int          `json:"violations"`
	Warnings   int          `json:"warnings"`
	Problems   []Violation  `json:"problems"`
	Omitted    int          `json:"omitted,omitempty"`
	Notes      []Diagnostic `json:"notes,omitempty"`
	Unreadable string       `json:"unreadable,omitempty"`
	// Connections are those of a capture of several (format version 2):
	// each problem's "connection" is one of their IDs.
	Connections []Connection           `json:"connections,omitempty"`
	problemsOut io.Writer              // CheckFile's lines
	nameOf      func(id string) string // names a connection in text lines
}

// Fold makes every string of r's JSON record one sanitized line
// (protocol.Line): a capture's session IDs, event IDs, connection labels and
// endpoints are a file's bytes, and a consumer such as `jq -r` prints a
// decoded "\n" as a line break.
func (r *FileReport) Fold() {
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

// CheckFile checks the capture file path. When lines is not nil, each
// problem and note is written to it as a line of its own, sanitized
// (textout), naming the file and, in a capture of several, the agent; the
// report then keeps none of them, only their counts.
func CheckFile(path string, o CheckOptions, lines io.Writer) *FileReport {
	r := &FileReport{File: path, problemsOut: lines}
	checkOne(r, o)
	return r
}

// checkOne checks one file into r.
func checkOne(r *FileReport, o CheckOptions) {
	c, err := NewChecker(o)
	if err != nil {
		r.Unreadable = err.Error()
		return
	}
	rd, err := Open(r.File)
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
			st := c.Check(rec)
			r.step(&st)
		}
	} else {
		r.Kind = rd.Kind()
		if err := c.CheckSteps(rd, r.step); err != nil {
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
func (r *FileReport) nothingRead(skipped int) {
	if r.Messages == 0 && skipped > 0 {
		r.Unreadable = fmt.Sprintf("%s: no AAEP message could be read from it (%d %s skipped)", r.File, skipped, prose.Plural(skipped, "line", "lines"))
	}
}

// step counts the step st and adds its violations; st is not kept.
func (r *FileReport) step(st *Step) {
	if !st.Record.Note {
		r.Messages++
	}
	for _, v := range st.Violations {
		r.add(v)
	}
}

func (r *FileReport) add(v Violation) {
	if v.Severity == SeverityViolation {
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
	if len(r.Problems) < MaxReported {
		r.Problems = append(r.Problems, v)
	} else {
		r.Omitted++
	}
}

func (r *FileReport) notes(ds []Diagnostic, more int) {
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
