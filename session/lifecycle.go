package session

import (
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
)

// maxTools bounds the tool calls remembered per session while they run.
const maxTools = 8

// check looks at ev, about to be delivered, against what its session did
// before, and reports each rule of the session lifecycle it breaks.
func (e *Engine) check(s *sessionState, ev *protocol.Event, now time.Time) {
	first := !s.seen
	s.seen = true
	switch {
	case s.ended && !(ev.HasSeq && ev.Seq < s.endSeq):
		// An event numbered before the end that arrives after it (a
		// critical end never waits) is reported late, not as a violation.
		e.violation(s, ev, now, "Session %s already ended; %s came after its end.", clean(s.id), typeName(ev.Type))
	case first && ev.Type != protocol.TypeSessionStarted && fromStart(s, ev):
		e.violation(s, ev, now, "Session %s began with %s instead of session.started.", clean(s.id), typeName(ev.Type))
	case ev.Type == protocol.TypeSessionStarted && s.started:
		e.violation(s, ev, now, "Session %s started a second time.", clean(s.id))
	}
	switch ev.Type {
	case protocol.TypeSessionStarted:
		s.started = true
		s.forgotten = false // seen from its start after all
	case protocol.TypeToolInvoked:
		e.toolInvoked(s, ev)
	case protocol.TypeToolCompleted:
		e.toolCompleted(s, ev, now)
	case protocol.TypeOutputStreaming:
		e.outputChunk(s, ev, now)
	case protocol.TypeSessionErrored:
		if ev.Urgency != protocol.UrgencyCritical {
			e.diagnose(now, "urgency", s.id, ev.EventID, fmt.Sprintf(
				"Session %s: session.errored must have urgency critical; it was treated as critical anyway.", clean(s.id)))
		}
	}
	if ev.IsTerminal() && !s.ended {
		if n := len(s.tools); n > 0 && !s.missing(ev) {
			e.violation(s, ev, now, "Session %s ended with %d tool %s still running: no tool.completed arrived for %s.",
				clean(s.id), n, prose.Plural(n, "call", "calls"), prose.Plural(n, "it", "them"))
		}
		if ev.HasSeq {
			s.endSeq = ev.Seq
		}
		e.endSession(s)
	}
}

// fromStart reports whether ev, the first event delivered of its session,
// should have been session.started: it is number 0, or the session was seen
// from its beginning (from number 0, or without numbers) rather than joined
// mid-way or perhaps forgotten and seen again.
func fromStart(s *sessionState, ev *protocol.Event) bool {
	switch {
	case s.joined:
		return false
	case ev.HasSeq && ev.Seq == 0:
		return true
	case s.forgotten:
		return false
	}
	return !ev.HasSeq || ev.Seq < 0 || s.known
}

// missing reports whether events of s numbered before ev, about to be
// delivered, never arrived or have not arrived yet: ev is delivered ahead of
// its turn (a critical event never waits), or numbers were given up.
func (s *sessionState) missing(ev *protocol.Event) bool {
	return s.gapped() || ev.HasSeq && s.known && ev.Seq > s.expect
}

// gapped reports whether numbers of s were given up after its start. (The
// numbers before a join, from 0, say nothing of the tool calls seen since.)
func (s *sessionState) gapped() bool {
	for _, r := range s.lost {
		if r.first > 0 {
			return true
		}
	}
	return false
}

// toolKey identifies a tool call: by its tool_call_id when it has one, else
// by the tool's name.
func (e *Engine) toolKey(ev *protocol.Event) uint64 {
	if ev.ToolCallID != "" {
		return e.hash.sum("id", ev.ToolCallID)
	}
	return e.hash.sum("tool", ev.Tool)
}

func (e *Engine) toolInvoked(s *sessionState, ev *protocol.Event) {
	if len(s.tools) == maxTools {
		// Forget the oldest; its completion can no longer be checked.
		copy(s.tools, s.tools[1:])
		s.tools = s.tools[:maxTools-1]
		s.untracked = true
	}
	if s.tools == nil {
		s.tools = make([]uint64, 0, maxTools)
	}
	s.tools = append(s.tools, e.toolKey(ev))
}

func (e *Engine) toolCompleted(s *sessionState, ev *protocol.Event, now time.Time) {
	k := e.toolKey(ev)
	for i, t := range s.tools {
		if t == k {
			s.tools = append(s.tools[:i], s.tools[i+1:]...)
			return
		}
	}
	if s.joined || s.forgotten || s.untracked || s.ended || s.gapped() {
		// It may have been invoked before we could see it, or among
		// events that never arrived; after the end, that is told already.
		return
	}
	what := "tool " + clean(ev.Tool)
	if ev.ToolCallID != "" {
		what = "tool call " + clean(ev.ToolCallID)
	}
	e.violation(s, ev, now, "Session %s: %s completed without an earlier tool.invoked.", clean(s.id), what)
}

// outputChunk checks that an output has at most one final chunk and nothing
// after it. Without an output_id the whole session is one output.
func (e *Engine) outputChunk(s *sessionState, ev *protocol.Event, now time.Time) {
	k := e.hash.sumAll(s.agent, s.id, ev.OutputID)
	if !e.done.has(k) {
		if ev.Complete {
			e.done.add(k)
		}
		return
	}
	what := "the output"
	if ev.OutputID != "" {
		what = "output " + clean(ev.OutputID)
	}
	if ev.Complete {
		e.violation(s, ev, now, "Session %s: %s was completed a second time.", clean(s.id), what)
		return
	}
	e.violation(s, ev, now, "Session %s: %s got another chunk after its final one.", clean(s.id), what)
}

// violation reports a broken lifecycle rule about ev.
func (e *Engine) violation(s *sessionState, ev *protocol.Event, now time.Time, format string, args ...any) {
	e.diagnose(now, "lifecycle", s.id, ev.EventID, fmt.Sprintf(format, args...))
}
