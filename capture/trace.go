// trace.go: the state-machine trace of a capture (spec appendix A), per session.

package capture

import (
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"

	"github.com/aaep-term/aaep-term/protocol"
)

// Trace is the path of every session of a capture through the states of
// spec appendix A, with the violations found on the way.
type Trace struct {
	Source      string
	Kind        string
	Records     int
	Sessions    []*SessionTrace
	Other       []TraceStep // messages of no session: handshake, stray replies, unreadable frames
	Diagnostics []Diagnostic
	Violations  int // of severity violation, in all
	Warnings    int
}

// SessionTrace is one session's path.
type SessionTrace struct {
	ID    string // sanitized
	Agent string // sanitized agent name or ID
	// Connection names the connection of a version-2 capture the session
	// came by (label, else endpoint); "" in version 1.
	Connection string
	Steps      []TraceStep
	Ended      string // the terminal event type, "" while open
	Duration   float64
	HasTime    bool
	Violations int
	Warnings   int

	conn   string // the connection's ID
	state  string // current agent state
	start  float64
	startT time.Time
	tools  map[string]float64 // open tool calls: start time
}

// TraceStep is one message and what it did to its session's state.
type TraceStep struct {
	Line       int
	At         float64 // seconds since the session's first event (or the capture start, outside sessions)
	HasAt      bool
	Dir        Dir
	Event      string // what the message is, in words: "tool.invoked fetch_balance"
	From, To   string // the state before and after; equal when it did not change
	Detail     string // one sentence on what happened
	Violations []Violation
}

// BuildTrace reads all of r through a full check and returns the trace.
func BuildTrace(r *Reader, source string, o CheckOptions) (*Trace, error) {
	c, err := NewChecker(o)
	if err != nil {
		return nil, err
	}
	t := &Trace{Source: source, Kind: r.Kind()}
	byID := map[string]*SessionTrace{}
	name := r.ConnName
	tokens := map[string]*SessionTrace{}
	err = c.CheckAll(r, func(st Step) {
		t.Records++
		t.add(st, byID, tokens, name)
	})
	if err != nil {
		return nil, fmt.Errorf("capture: %s: %w", source, err)
	}
	for _, v := range c.Finish() {
		s := t.openedAt(v.Conn, v.Session, v.Line)
		if s == nil || len(s.Steps) == 0 {
			t.Other = append(t.Other, TraceStep{Line: v.Line, Violations: []Violation{v}})
			t.count(v, nil)
			continue
		}
		last := &s.Steps[len(s.Steps)-1]
		last.Violations = append(last.Violations, v)
		t.count(v, s)
	}
	t.groupByConnection()
	t.Diagnostics, _ = r.Diagnostics()
	return t, nil
}

// openedAt returns the session of ID id whose first step is on line, the
// one a Finish violation is about: two agents may use the same session ID.
func (t *Trace) openedAt(conn, id string, line int) *SessionTrace {
	for _, s := range t.Sessions {
		if s.ID == id && s.conn == conn && len(s.Steps) > 0 && s.Steps[0].Line == line {
			return s
		}
	}
	return nil
}

func (t *Trace) count(v Violation, s *SessionTrace) {
	if v.Severity == SeverityViolation {
		t.Violations++
		if s != nil {
			s.Violations++
		}
	} else {
		t.Warnings++
		if s != nil {
			s.Warnings++
		}
	}
}

// add places one checked record in the trace.
func (t *Trace) add(st Step, byID, tokens map[string]*SessionTrace, name func(string) string) {
	rec := st.Record
	step := TraceStep{Line: rec.Line, At: rec.T, HasAt: rec.HasT, Dir: rec.Dir, Violations: st.Violations}
	ev := st.Event
	var s *SessionTrace
	switch {
	case rec.Note:
		step.Event = "transport note"
		step.Detail = noteWords(rec.Msg)
	case ev != nil && ev.SessionID != "":
		key := sessionKey(rec.Conn, ev)
		s = byID[key]
		if s == nil || s.Ended != "" && ev.Type == protocol.TypeSessionStarted {
			s = &SessionTrace{ID: protocol.Sanitize(ev.SessionID), state: "no session", start: rec.T,
				startT: ev.Timestamp, tools: map[string]float64{}, HasTime: rec.HasT || !ev.Timestamp.IsZero()}
			s.Agent = ev.Producer.AgentName.String()
			if s.Agent == "" {
				s.Agent = protocol.Sanitize(ev.Producer.AgentID)
			}
			s.Connection, s.conn = name(rec.Conn), rec.Conn
			byID[key] = s
			t.Sessions = append(t.Sessions, s)
		}
		step.At, step.HasAt = s.elapsed(rec, ev)
		s.Duration = max(s.Duration, step.At)
		s.event(&step, ev, tokens)
	case st.Type == protocol.TypeConfirmationReply || st.Type == protocol.TypeClarificationReply:
		token, _ := st.Msg["reply_token"].(string)
		s = tokens[tokenKey(rec.Conn, token)]
		step.Event = "sent " + st.Type
		if rec.Dir == In {
			step.Event = "received " + st.Type
		}
		if s != nil {
			step.At, step.HasAt = rec.T-s.start, rec.HasT
			s.reply(&step, st)
		} else {
			step.Detail = "A reply to a prompt this capture did not see."
		}
	default:
		step.Event = messageWords(st)
		step.Detail = otherWords(st)
	}
	if s == nil {
		if rec.Conn != "" { // outside sessions, only this says whose it is
			step.Event += ", connection " + name(rec.Conn)
		}
		t.Other = append(t.Other, step)
	} else {
		s.Steps = append(s.Steps, step)
	}
	for _, v := range st.Violations {
		t.count(v, s)
	}
}

// elapsed is the time of a step from the session's first event: by receive
// time in a capture, by event timestamps in plain JSONL.
func (s *SessionTrace) elapsed(rec Record, ev *protocol.Event) (float64, bool) {
	if rec.HasT {
		return rec.T - s.start, true
	}
	if ev.Timestamp.IsZero() || s.startT.IsZero() {
		return 0, false
	}
	return ev.Timestamp.Sub(s.startT).Seconds(), true
}

// event moves the session's state for one event.
func (s *SessionTrace) event(step *TraceStep, ev *protocol.Event, tokens map[string]*SessionTrace) {
	step.Event = typeName(ev.Type)
	step.From = s.state
	switch ev.Type {
	case protocol.TypeSessionStarted:
		s.state = "idle"
		step.Detail = "The session starts."
	case protocol.TypeStateChanged:
		from, to := protocol.Sanitize(ev.FromState), protocol.Sanitize(ev.ToState)
		step.Detail = "The agent announces its new state."
		if from != "" && from != s.state && s.state != "no session" {
			step.Detail = fmt.Sprintf("The event says the agent left %s, but its state was %s.", from, s.state)
		}
		s.state = to
	case protocol.TypeToolInvoked:
		step.Event += " " + protocol.Sanitize(ev.Tool)
		s.tools[toolKey(ev)] = step.At
		step.Detail = fmt.Sprintf("%s starts%s; %d tool %s running.", capital(toolWords(ev)), riskWords(ev), len(s.tools), prose.Plural(len(s.tools), "call", "calls"))
	case protocol.TypeToolCompleted:
		step.Event += " " + protocol.Sanitize(ev.Tool)
		step.Detail = fmt.Sprintf("%s ends: %s", capital(toolWords(ev)), protocol.Sanitize(orWord(ev.Status, "no status")))
		if at, ok := s.tools[toolKey(ev)]; ok && step.HasAt {
			step.Detail += fmt.Sprintf(", after %s", seconds(step.At-at))
		}
		delete(s.tools, toolKey(ev))
		step.Detail += "."
	case protocol.TypeOutputStreaming:
		what := "Output"
		if ev.OutputID != "" {
			what = "Output " + protocol.Sanitize(ev.OutputID)
		}
		step.Detail = fmt.Sprintf("%s: chunk at position %d, %d bytes", what, ev.Position, len(ev.Chunk))
		if ev.Complete {
			step.Detail += ", complete"
		}
		step.Detail += "."
	case protocol.TypeAwaitingConfirmation:
		tokens[tokenKey(s.conn, ev.ReplyToken)] = s
		step.Detail = fmt.Sprintf("Waiting for a decision on: %s Default %s after %d seconds.", sentence(ev.Action.String()),
			protocol.Sanitize(orWord(ev.DefaultDecision, "none")), ev.TimeoutSeconds)
		s.state = "awaiting_input"
	case protocol.TypeAwaitingClarify:
		tokens[tokenKey(s.conn, ev.ReplyToken)] = s
		step.Detail = fmt.Sprintf("Waiting for an answer to: %s", sentence(ev.Question.String()))
		s.state = "awaiting_input"
	case protocol.TypeHandoffRequested:
		step.Detail = fmt.Sprintf("Hand-off requested to %s: %s", protocol.Sanitize(orWord(ev.TargetKind, "someone")), sentence(ev.Reason.String()))
		s.state = "handing_off"
	case protocol.TypeProgressUpdated:
		step.Detail = "Progress"
		if ev.Progress.HasPercent {
			step.Detail += fmt.Sprintf(" %g percent", ev.Progress.Percent)
		}
		if ev.Progress.TotalSteps > 0 {
			step.Detail += fmt.Sprintf(", step %d of %d", ev.Progress.Step, ev.Progress.TotalSteps)
		}
		step.Detail += "."
	case protocol.TypeSessionCompleted, protocol.TypeSessionErrored, protocol.TypeSessionCancelled:
		end := strings.TrimPrefix(step.Event, "session.")
		step.Detail = fmt.Sprintf("The session ends: %s.", end)
		s.state = "terminated"
		if s.Ended == "" {
			s.Ended = step.Event
		}
	default:
		step.Detail = "An event of a type outside the core; the state does not change."
	}
	step.To = s.state
}

// reply records a decision or answer the subscriber sent.
func (s *SessionTrace) reply(step *TraceStep, st Step) {
	step.From, step.To = s.state, s.state
	if d, ok := st.Msg["decision"].(string); ok {
		step.Detail = fmt.Sprintf("The subscriber decided: %s.", protocol.Sanitize(d))
	} else {
		step.Detail = fmt.Sprintf("The subscriber answered: %s.", protocol.Sanitize(fmt.Sprint(st.Msg["response"])))
	}
}

func noteWords(msg []byte) string {
	return "Transport: " + protocol.Sanitize(string(msg)) + "."
}

func messageWords(st Step) string {
	if st.Record.IsText() {
		return "a frame that is not JSON"
	}
	if st.Type == "" {
		return "a message with no type"
	}
	verb := "received"
	if st.Record.Dir == Out {
		verb = "sent"
	}
	return verb + " " + typeName(st.Type)
}

func otherWords(st Step) string {
	switch st.Type {
	case protocol.TypeSubscriptionRequest:
		return "The subscriber asks to subscribe."
	case protocol.TypeSubscriptionAccepted:
		return "The producer accepts the subscription."
	case protocol.TypeSubscriptionRejected:
		return "The producer refuses the subscription."
	case protocol.TypeSubscriptionRenegotiate:
		return "The subscriber renegotiates."
	case protocol.TypeSubscriptionClose:
		return "The subscription closes."
	}
	if st.Event != nil {
		return "An event without a session."
	}
	return "A message that could not be read as an event."
}

func riskWords(ev *protocol.Event) string {
	var parts []string
	if ev.RiskLevel != "" {
		parts = append(parts, protocol.Sanitize(ev.RiskLevel)+" risk")
	}
	if irreversible(ev) {
		parts = append(parts, "irreversible")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func seconds(s float64) string { return fmt.Sprintf("%.3f s", s) }

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sentence ends s with a full stop; empty text says so.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no text)."
	}
	return prose.Stop(s)
}
