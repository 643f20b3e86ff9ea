// sequence.go: the rules across events of a session (spec §4.5, §3.2, §3.4.1, appendix A).

package capture

import (
	"fmt"
	"hash/maphash"
	"sort"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
)

// sequence checks ev, received, against what its session did before.
func (c *Checker) sequence(st *Step, ev *protocol.Event) {
	rec := &st.Record
	a := adder{st}
	// Both keys below begin with the agent's: it is built once.
	c.keyBuf = appendAgentKey(c.keyBuf[:0], rec.Conn, ev)
	agent := len(c.keyBuf)
	if ev.EventID != "" {
		// The key of an event is its session's key with the event ID
		// for the session ID, built in the checker's buffer and hashed
		// at once (five writes to a maphash.Hash cost twice as much).
		c.keyBuf = append(c.keyBuf, ev.EventID...)
		if prev, seen := c.seen.Add(maphash.Bytes(c.seed, c.keyBuf), rec.Line); seen {
			a.add("duplicate", "3.2.3", SeverityViolation, "Event %s was already sent on line %d; event IDs must be unique.", protocol.Sanitize(ev.EventID), prev)
			return // a repeat says nothing new about the session
		}
	}
	if ev.SessionID == "" {
		return
	}
	// The key is built in the checker's buffer: looking a session up
	// with it allocates nothing, only a new session's key is a string.
	c.keyBuf = append(c.keyBuf[:agent], ev.SessionID...) // appendSessionKey
	s := c.session(c.keyBuf)
	if s == nil {
		key := string(c.keyBuf)
		if c.ended.has(key) {
			if ev.IsTerminal() {
				a.add("bracketing", "4.5.1", SeverityViolation, "Session %s already ended; a second %s came after its end.", a.session(), typeName(ev.Type))
			} else {
				a.add("bracketing", "4.5.1", SeverityViolation, "Session %s already ended; %s came after its end.", a.session(), typeName(ev.Type))
			}
			return
		}
		if len(c.sessions) >= maxOpenSessions {
			c.forgetOne()
		}
		// Its ID is the end of its key, a string of its own: ev's
		// strings are cut from the record's line (keep).
		s = &sessState{id: key[len(key)-len(ev.SessionID):], conn: rec.Conn, key: key, firstLine: rec.Line, hasSeq: ev.HasSeq, tools: map[uint64]int{}, outputs: map[string]*output{}}
		s.fromStart = ev.Type == protocol.TypeSessionStarted || (ev.HasSeq && ev.Seq == 0)
		c.sessions[key] = s
		*c.recentSlot(key[len(key)-1]) = s
		if ev.Type != protocol.TypeSessionStarted && s.fromStart {
			a.add("bracketing", "4.5.1", SeverityViolation, "Session %s began with %s instead of session.started.", a.session(), typeName(ev.Type))
		} else if ev.Type != protocol.TypeSessionStarted {
			a.add("bracketing", "4.5.1", SeverityWarning, "Session %s was joined mid-way: its first event here is %s, not session.started (a capture started late, or the producer skipped it).", a.session(), typeName(ev.Type))
		}
	} else if ev.Type == protocol.TypeSessionStarted {
		a.add("bracketing", "4.5.1", SeverityViolation, "Session %s started a second time (first on line %d).", a.session(), s.firstLine)
	}
	c.order(s, ev, a)
	var unconfirmed action // the tool call just before, if no confirmation covered it
	if s.unconfirmed.set {
		// Cleared only when set: clearing its strings on the heap for
		// every event cost a write barrier's test each.
		unconfirmed, s.unconfirmed = s.unconfirmed, action{}
	}
	switch ev.Type {
	case protocol.TypeStateChanged:
		if d := s.decided; d != nil && d.decision == protocol.DecisionReject {
			s.decided = nil // the follow-up of a rejection
		}
	case protocol.TypeToolInvoked:
		c.toolInvoked(s, ev, a)
	case protocol.TypeToolCompleted:
		k := c.toolHash(ev)
		_, ok := s.tools[k]
		switch {
		case ok:
			delete(s.tools, k)
		case s.forgottenTools > 0:
			// One of the calls forgotten to bound memory, as far as the
			// checker can tell.
			s.forgottenTools--
			c.calls.completed++
		default:
			a.add("tool-pairing", "4.5.2", SeverityViolation, "tool.completed for %s has no tool.invoked before it.", toolWords(ev))
		}
	case protocol.TypeOutputStreaming:
		c.outputChunk(s, ev, a)
	case protocol.TypeAwaitingConfirmation:
		// The confirmation is kept: what it names, copied, since ev's
		// memory is used again for a later event (CheckSteps) and its
		// strings are cut from the record's line (keep).
		conf := &confirmation{session: s.id, key: s.key, token: tokenKey(rec.Conn, ev.ReplyToken), line: rec.Line,
			irreversible: irreversible(ev), names: actionOf(ev, rec.Line).owned(), hasToken: ev.ReplyToken != ""}
		// Right after the tool call it covers, it is that call's (late)
		// confirmation, as the listener links it: no later call uses it.
		conf.consumed = unconfirmed.coveredBy(ev)
		s.confirms = append(s.confirms, conf)
		if ev.ReplyToken != "" {
			if _, old, ok := c.tokenIDs.add(conf.token, rec.Line); ok {
				delete(c.tokens, old)
			}
			c.tokens[conf.token] = conf
		}
	}
	if ev.IsTerminal() {
		c.end(s, ev, a)
	}
}

// recentSessions is how many open sessions the checker finds without
// looking them up in its map (Checker.recent).
const recentSessions = 8

// session returns the open session of key (a sessionKey), or nil. The
// sessions met last are found by the last byte of their key, which tells
// apart the IDs a producer numbers ("sess_1", "sess_2"), with one
// comparison of the key: a look-up in the map of sessions hashed it, or,
// for a map of a few, compared it with each of their keys (75
// instructions an event for the 4 sessions of the benchmark's capture).
func (c *Checker) session(key []byte) *sessState {
	slot := c.recentSlot(key[len(key)-1])
	if s := *slot; s != nil && s.key == string(key) {
		return s
	}
	s := c.sessions[string(key)]
	if s != nil {
		*slot = s
	}
	return s
}

// recentSlot is the place in c.recent of a session whose key (a
// sessionKey, never empty) ends with the byte last. Only an open session
// is there: drop takes it out.
func (c *Checker) recentSlot(last byte) **sessState {
	return &c.recent[last%recentSessions]
}

// adder adds violations to a step; a value, so that the hot path allocates nothing.
type adder struct{ st *Step }

// session is the session ID of the step's event as shown in a violation:
// made for a violation only (sanitizing it for every event cost more than
// the rest of the sequencing rules).
func (a adder) session() string { return protocol.Sanitize(a.st.Event.SessionID) }

func (a adder) add(rule, section, severity, format string, args ...any) {
	ev := a.st.Event
	a.st.Violations = append(a.st.Violations, Violation{Line: a.st.Record.Line, Session: keep(protocol.Sanitize(ev.SessionID)),
		EventID: keep(protocol.Sanitize(ev.EventID)), Rule: rule, Section: section, Severity: severity, Message: fmt.Sprintf(format, args...)})
}

// order checks sequence numbers (§3.4.1) and timestamps (§3.2.5).
func (c *Checker) order(s *sessState, ev *protocol.Event, a adder) {
	if ev.HasSeq != s.hasSeq && !s.mixedSeq {
		s.mixedSeq = true
		a.add("sequence-number", "3.4.1", SeverityViolation, "Session %s mixes events with and without sequence_number.", protocol.Sanitize(s.id))
	}
	if ev.HasSeq {
		switch {
		case ev.Type == protocol.TypeSessionStarted && ev.Seq != 0:
			a.add("sequence-number", "3.4.1", SeverityViolation, "session.started must have sequence_number 0, not %d.", ev.Seq)
		case s.seqKnown && ev.Seq <= s.lastSeq:
			a.add("sequence-number", "3.4.1", SeverityViolation, "sequence_number %d comes after %d; numbers must go up by one per event.", ev.Seq, s.lastSeq)
		case s.seqKnown && ev.Seq != s.lastSeq+1 && c.withheld(s.conn) != "":
			// Not a loss: the terms let the producer leave these out.
			a.add("sequence-number", "3.4.1", SeverityWarning, "sequence_number jumps from %d to %d: %d %s not in this stream; the subscription's terms let the producer leave out %s, so these may be events held back rather than lost.", s.lastSeq, ev.Seq, ev.Seq-s.lastSeq-1, prose.Plural(int(ev.Seq-s.lastSeq-1), "event is", "events are"), c.withheld(s.conn))
		case s.seqKnown && ev.Seq != s.lastSeq+1:
			a.add("sequence-number", "3.4.1", SeverityViolation, "sequence_number jumps from %d to %d: %d %s missing or numbered wrong.", s.lastSeq, ev.Seq, ev.Seq-s.lastSeq-1, prose.Plural(int(ev.Seq-s.lastSeq-1), "event is", "events are"))
		}
		if !s.seqKnown || ev.Seq > s.lastSeq {
			s.lastSeq = ev.Seq
		}
		s.seqKnown = true
	}
	if ts := ev.Timestamp; !ts.IsZero() {
		// The instant as Unix seconds and nanoseconds: time.Time's Before
		// (a call) and a Time stored in the session (its Location a
		// pointer, so a write barrier's test) cost about 35 instructions
		// more an event. The decoder's times have no monotonic reading.
		sec, nsec := ts.Unix(), int32(ts.Nanosecond())
		if s.tsKnown && (sec < s.lastSec || sec == s.lastSec && nsec < s.lastNsec) {
			a.add("timestamp-order", "3.2.5", SeverityViolation, "The timestamp goes back %s from the previous event of session %s; timestamps must not decrease.",
				ts.Sub(time.Unix(s.lastSec, int64(s.lastNsec))).Abs(), protocol.Sanitize(s.id))
		} else {
			s.tsKnown, s.lastSec, s.lastNsec = true, sec, nsec
		}
	}
}

// toolInvoked pairs a tool call and checks that an irreversible one was confirmed (§4.5.3).
func (c *Checker) toolInvoked(s *sessState, ev *protocol.Event, a adder) {
	k := c.toolHash(ev)
	if line, ok := s.tools[k]; ok && ev.ToolCallID != "" {
		a.add("tool-pairing", "4.5.2", SeverityViolation, "%s was already invoked on line %d and has not completed.", capital(toolWords(ev)), line)
	}
	s.tools[k] = c.line
	c.calls.add(s, k, c.line)
	if d := s.decided; d != nil && d.decision == protocol.DecisionReject && !d.consumed {
		d.consumed = true
		s.decided = nil
		a.add("confirmation", "4.5.3", SeverityViolation, "%s was invoked right after the confirmation of line %d was rejected (reply on line %d); a rejected action must not proceed.",
			capital(toolWords(ev)), d.line, d.replyLine)
		return
	}
	conf := s.confirmationFor(ev)
	if conf == nil {
		c.setUnconfirmed(s, ev)
	}
	if protocol.UnconfirmedIrreversible(irreversible(ev), conf != nil, s.fromStart) {
		a.add(protocol.RuleUnconfirmedIrreversible, protocol.SectionUnconfirmedIrreversible, SeverityViolation,
			"Irreversible %s was invoked with no confirmation asked before it.", toolWords(ev))
		return
	}
	if conf == nil || !irreversible(ev) && !conf.irreversible {
		return // an ordinary tool call while a confirmation is pending or answered
	}
	conf.consumed = true
	if s.decided == conf {
		s.decided = nil
	}
	if conf.decision == protocol.DecisionReject {
		a.add("confirmation", "4.5.3", SeverityViolation, "%s was invoked although its confirmation (line %d) was rejected on line %d.",
			capital(toolWords(ev)), conf.line, conf.replyLine)
	}
}

// action is what protocol.Covers reads of a tool call or a confirmation,
// the action it names: kept instead of the event, whose memory is used
// again for a later event (CheckSteps), and which a Clone for every tool
// call would allocate. line is the record it was read from.
type action struct {
	set                             bool
	line                            int
	toolCallID, correlationID, tool string
}

// actionOf is the action tool call (or confirmation) ev, of line, names.
// Its strings are ev's, cut from the record's line (owned copies them).
func actionOf(ev *protocol.Event, line int) action {
	return action{set: true, line: line, toolCallID: ev.ToolCallID, correlationID: ev.CorrelationID, tool: ev.Tool}
}

// owned is a with strings of its own (keep), in one allocation.
func (a action) owned() action {
	all := a.toolCallID + a.correlationID + a.tool
	i, j := len(a.toolCallID), len(a.toolCallID)+len(a.correlationID)
	a.toolCallID, a.correlationID, a.tool = all[:i], all[i:j], all[j:]
	return a
}

// event is a as an event, for protocol.Covers.
func (a action) event() protocol.Event {
	return protocol.Event{ToolCallID: a.toolCallID, CorrelationID: a.correlationID, Tool: a.tool}
}

// coveredBy reports whether confirmation conf covers the tool call of a
// (protocol.Covers); false when a is not set.
func (a action) coveredBy(conf *protocol.Event) bool {
	if !a.set {
		return false
	}
	t := a.event()
	return protocol.Covers(conf, &t)
}

// confirmationFor returns the oldest confirmation not yet followed by its
// action that covers tool call ev (protocol.Covers), or nil.
func (s *sessState) confirmationFor(ev *protocol.Event) *confirmation {
	for _, conf := range s.confirms {
		if conf.consumed {
			continue
		}
		if ask := conf.names.event(); protocol.Covers(&ask, ev) {
			return conf
		}
	}
	return nil
}

// pinnedActions bounds the sessions whose unconfirmed action is ev's
// strings as they are, cut from a record's line: each keeps that line's
// block alive (Reader.keepLine), and a session's next event, which clears
// it, may never come.
const pinnedActions = 64

// pinned is a session whose unconfirmed action was set at line.
type pinned struct {
	s    *sessState
	line int
}

// setUnconfirmed makes tool call ev the unconfirmed action of s. Copying
// its strings for every call (3 events in 8 here) would cost an
// allocation each; they are copied only when the action is still set after
// pinnedActions later ones, so at most that many blocks are kept by them.
func (c *Checker) setUnconfirmed(s *sessState, ev *protocol.Event) {
	p := &c.pins[c.pinNext]
	if o := p.s; o != nil && o.unconfirmed.set && o.unconfirmed.line == p.line {
		o.unconfirmed = o.unconfirmed.owned()
	}
	s.unconfirmed = actionOf(ev, c.line)
	*p = pinned{s, c.line}
	c.pinNext = (c.pinNext + 1) % pinnedActions
}

// irreversible reports whether a tool call or confirmation says it cannot be
// undone. (One place to read it, so that it follows the protocol's reading.)
func irreversible(ev *protocol.Event) bool {
	return ev.Undo().CannotBeUndone()
}

// outputChunk checks streamed output (§4.5.4, appendix A.6).
func (c *Checker) outputChunk(s *sessState, ev *protocol.Event, a adder) {
	o := s.outputs[ev.OutputID]
	if o == nil {
		o = &output{lastPos: -1}
		s.outputs[keep(ev.OutputID)] = o
	}
	switch {
	case o.complete != 0 && ev.Complete:
		a.add("output-completion", "4.5.4", SeverityViolation, "A second completing chunk for %s; it was already completed on line %d.", outputWords(ev), o.complete)
	case o.complete != 0:
		a.add("output-completion", "4.5.4", SeverityViolation, "A chunk for %s came after it was completed on line %d.", outputWords(ev), o.complete)
	case ev.Position < o.lastPos:
		a.add("output-position", "4.5.4", SeverityViolation, "The position of %s went back from %d to %d; positions must increase (appendix A.6).", outputWords(ev), o.lastPos, ev.Position)
	}
	o.lastPos = max(o.lastPos, ev.Position)
	if ev.Complete && o.complete == 0 {
		o.complete = c.line
	}
}

// outputWords names the output a chunk belongs to, for a violation (made
// only then: every chunk of a stream is checked).
func outputWords(ev *protocol.Event) string {
	if ev.OutputID != "" {
		return "output " + protocol.Sanitize(ev.OutputID)
	}
	return "the session's output"
}

// end closes a session at its terminal event: what it left open is reported.
func (c *Checker) end(s *sessState, ev *protocol.Event, a adder) {
	sid := protocol.Sanitize(s.id)
	if n := len(s.tools) + s.forgottenTools; n > 0 {
		c.calls.neverCompleted += n
		a.add("tool-pairing", "4.5.2", SeverityViolation, "Session %s ended with %d tool %s never completed.", sid, n, prose.Plural(n, "call", "calls"))
	}
	for id, o := range s.outputs {
		if o.complete == 0 {
			what := "its output"
			if id != "" {
				what = "output " + protocol.Sanitize(id)
			}
			a.add("output-completion", "4.5.4", SeverityViolation, "Session %s ended before %s had a chunk with complete true.", sid, what)
		}
	}
	if d := s.decided; d != nil {
		switch d.decision {
		case protocol.DecisionReject:
			a.add("follow-up", "4.5.3", SeverityViolation, "Session %s ended without a state.changed after the confirmation of line %d was rejected.", sid, d.line)
		case protocol.DecisionAccept:
			if !d.consumed && ev.Type == protocol.TypeSessionCompleted {
				a.add("follow-up", "4.5.3", SeverityViolation, "Session %s completed without invoking the action accepted on line %d.", sid, d.replyLine)
			}
		}
	}
	for _, conf := range s.confirms {
		if conf.hasToken {
			delete(c.tokens, conf.token)
		}
	}
	c.drop(s)
	c.ended.add(s.key, 1)
}

// drop forgets the session s: it is no longer open, and the tool calls the
// circle of calls still names in it (calls.add) are no longer its open
// calls (they were counted, or forgotten with it). The circle may keep s
// for up to toolWindow calls more, so s then keeps nothing else alive:
// not its maps, nor its ID, which shares the line of its first event.
func (c *Checker) drop(s *sessState) {
	delete(c.sessions, s.key)
	if slot := c.recentSlot(s.key[len(s.key)-1]); *slot == s {
		*slot = nil
	}
	s.tools, s.outputs, s.confirms, s.decided, s.unconfirmed, s.id = nil, nil, nil, nil, action{}, ""
}

// forgetOne forgets an open session to keep memory bounded; Finish says how
// many were forgotten.
func (c *Checker) forgetOne() {
	for _, s := range c.sessions {
		c.drop(s)
		c.forgotten++
		return
	}
}

// Finish reports what the sessions still open at the end of the capture left undone.
func (c *Checker) Finish() []Violation {
	var out []Violation
	for _, s := range c.sessions {
		if !s.fromStart {
			continue
		}
		out = append(out, Violation{Line: s.firstLine, Conn: s.conn, Session: protocol.Sanitize(s.id), Rule: "bracketing", Section: "4.5.1", Severity: SeverityWarning,
			Message: fmt.Sprintf("Session %s, started on line %d, had not ended when the capture stopped.", protocol.Sanitize(s.id), s.firstLine)})
	}
	sortViolations(out)
	if n := c.calls.forgotten; n > 0 {
		open := c.calls.neverCompleted
		for _, s := range c.sessions {
			open += len(s.tools) + s.forgottenTools
		}
		out = append(out, Violation{Line: c.line, Rule: "open-tool-calls", Section: "4.5.2", Severity: SeverityWarning,
			Message: fmt.Sprintf("%d tool %s never completed; %d %s forgotten, to keep memory bounded, when still open after %d later tool calls (%d of them completed later: such a tool.completed is not reported as unpaired).",
				open, prose.Plural(open, "call", "calls"), n, prose.Plural(n, "was", "were"), toolWindow, c.calls.completed)})
	}
	if c.forgotten > 0 {
		out = append(out, Violation{Line: c.line, Rule: "open-sessions", Section: "4.5.1", Severity: SeverityWarning,
			Message: fmt.Sprintf("%d sessions that never ended were forgotten to keep memory bounded (more than %d were open at once); later events of theirs may be reported as joined mid-way.", c.forgotten, maxOpenSessions)})
	}
	return out
}

// sortViolations orders violations by line, keeping the order within a line.
func sortViolations(vs []Violation) {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Line < vs[j].Line })
}

// toolKey is how a session's tool call is known: by its call ID, or, when
// it has none, by its tool.
func toolKey(ev *protocol.Event) string {
	var buf [64]byte
	return string(appendToolKey(buf[:0], ev))
}

// toolHash is how the checker knows a session's tool call: the hash of
// its toolKey (with the checker's seed, as the dedupe window knows an
// event), built in the checker's buffer. Kept as the string, a call's key
// was an allocation a call, and the maps of open calls and the circle of
// calls 16,384 strings more for every collection to follow; a map of
// hashes is looked up without comparing strings. Two calls of a session
// open at once take each other's place only if their keys' 64-bit hashes
// are the same, with a seed no producer knows.
func (c *Checker) toolHash(ev *protocol.Event) uint64 {
	c.toolBuf = appendToolKey(c.toolBuf[:0], ev)
	return maphash.Bytes(c.seed, c.toolBuf)
}

// appendToolKey appends the toolKey of ev to b.
func appendToolKey(b []byte, ev *protocol.Event) []byte {
	if ev.ToolCallID != "" {
		return append(append(b, "id\x00"...), ev.ToolCallID...)
	}
	return append(append(b, "tool\x00"...), ev.Tool...)
}

func toolWords(ev *protocol.Event) string {
	if ev.ToolCallID != "" {
		return fmt.Sprintf("tool %s (call %s)", protocol.Sanitize(ev.Tool), protocol.Sanitize(ev.ToolCallID))
	}
	return "tool " + protocol.Sanitize(ev.Tool)
}

// calls remembers the last toolWindow tool calls, in a circle, so that a
// call still open when its place comes round again is forgotten: the open
// calls the checker keeps are bounded however long a session runs.
type calls struct {
	ring []openCall
	next int
	// forgotten counts the calls forgotten while open; completed, those
	// of them whose tool.completed came later; neverCompleted, the calls
	// that sessions ended with open.
	forgotten, completed, neverCompleted int
}

// openCall is a tool call: its session, its toolHash, its line. A session
// that ended or was forgotten (Checker.drop) has no open calls.
type openCall struct {
	session *sessState
	tool    uint64
	line    int
}

// add remembers the call tool of session s at line, forgetting the oldest
// call of the circle if its session still has it open. (The session is
// kept, not its key: looking the key up cost a map look-up a call.)
func (cs *calls) add(s *sessState, tool uint64, line int) {
	if cs.ring == nil {
		cs.ring = make([]openCall, toolWindow)
	}
	old := cs.ring[cs.next]
	if o := old.session; o != nil && o.tools[old.tool] == old.line {
		delete(o.tools, old.tool)
		o.forgottenTools++
		cs.forgotten++
	}
	cs.ring[cs.next] = openCall{s, tool, line}
	cs.next = (cs.next + 1) % len(cs.ring)
}
