// render.go: the trace as plain text a screen reader reads line by line.

package capture

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/internal/textout"
)

// WriteText writes the trace as plain text: a summary, then per session one
// line per step and one line per problem, in words, with no escape sequences
// and no alignment by spaces.
func (t *Trace) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	textout.Fprintf(bw, "State-machine trace of %s: %s.\n", t.Source, t.summary())
	for _, d := range t.Diagnostics {
		textout.Fprintf(bw, "Note on reading, line %d: %s\n", d.Line, d.Message)
	}
	for i, s := range t.Sessions {
		if t.newGroup(i) {
			n := t.groupSize(i)
			textout.Fprintf(bw, "\nConnection %s: %d %s.\n", s.Connection, n, prose.Plural(n, "session", "sessions"))
		}
		textout.Fprintf(bw, "\nSession %s, agent %s: %s.\n", s.ID, s.agentWords(), s.summary())
		for _, st := range s.Steps {
			writeStep(bw, st)
		}
	}
	if len(t.Other) > 0 {
		textout.Fprintf(bw, "\nOutside any session: %d %s.\n", len(t.Other), prose.Plural(len(t.Other), "message", "messages"))
		for _, st := range t.Other {
			writeStep(bw, st)
		}
	}
	textout.Fprintf(bw, "\nEnd of trace: %s.\n", t.verdict())
	return bw.Flush()
}

func writeStep(w io.Writer, st TraceStep) {
	if st.Event != "" {
		at := ""
		if st.HasAt {
			at = ", at " + seconds(st.At)
		}
		state := ""
		if st.To != "" && st.From != st.To {
			state = fmt.Sprintf(" State %s to %s.", st.From, st.To)
		}
		textout.Fprintf(w, "Line %d%s: %s. %s%s\n", st.Line, at, st.Event, st.Detail, state)
	}
	for _, v := range st.Violations {
		textout.Fprintf(w, "%s at line %d (%s, spec section %s): %s\n", severityWord(v.Severity), v.Line, v.Rule, v.Section, v.Message)
	}
}

func severityWord(s string) string {
	if s == SeverityViolation {
		return "VIOLATION"
	}
	return "Warning"
}

func (t *Trace) summary() string {
	return fmt.Sprintf("%s, %d %s, %d %s, %s", kindWords(t.Kind), t.Records, prose.Plural(t.Records, "record", "records"),
		len(t.Sessions), prose.Plural(len(t.Sessions), "session", "sessions"), t.verdict())
}

func (t *Trace) verdict() string {
	return countWords(t.Violations, t.Warnings)
}

func (s *SessionTrace) summary() string {
	end := "still open at the end of the capture"
	if s.Ended != "" {
		end = "ended with " + s.Ended
	}
	dur := ""
	if s.HasTime {
		dur = ", " + seconds(s.Duration)
	}
	return fmt.Sprintf("%d %s%s, %s, %s", len(s.Steps), prose.Plural(len(s.Steps), "step", "steps"), dur, end, countWords(s.Violations, s.Warnings))
}

func countWords(violations, warnings int) string {
	return fmt.Sprintf("%d %s and %d %s", violations, prose.Plural(violations, "violation", "violations"),
		warnings, prose.Plural(warnings, "warning", "warnings"))
}

func kindWords(kind string) string {
	if kind == KindCapture {
		return "an .aaep capture"
	}
	return "plain JSON lines"
}

// agentWords names the session's agent, and its connection in a capture of several.
func (s *SessionTrace) agentWords() string {
	w := orWord(s.Agent, "unnamed")
	if s.Connection != "" {
		w += " on connection " + s.Connection
	}
	return w
}

// newGroup reports whether session i starts the sessions of a connection of
// a version-2 capture (BuildTrace keeps them together).
func (t *Trace) newGroup(i int) bool {
	s := t.Sessions[i]
	return s.conn != "" && (i == 0 || t.Sessions[i-1].conn != s.conn)
}

// groupSize is how many sessions the group starting at i holds.
func (t *Trace) groupSize(i int) int {
	n := 0
	for _, s := range t.Sessions[i:] {
		if s.conn != t.Sessions[i].conn {
			break
		}
		n++
	}
	return n
}

// groupByConnection orders the sessions of a version-2 capture by their
// connection, in the order the connections first sent one, keeping the
// order of each connection's sessions.
func (t *Trace) groupByConnection() {
	first := map[string]int{}
	for i, s := range t.Sessions {
		if _, ok := first[s.conn]; !ok {
			first[s.conn] = i
		}
	}
	sort.SliceStable(t.Sessions, func(i, j int) bool { return first[t.Sessions[i].conn] < first[t.Sessions[j].conn] })
}
