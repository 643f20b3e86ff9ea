// check.go: the checker: schema validation and the sequencing rules of a capture.

package capture

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/aaep-term/aaep-term/internal/keywindow"
	"github.com/aaep-term/aaep-term/protocol"
)

// Severities of a Violation.
const (
	SeverityViolation = "violation" // the spec says MUST (NOT)
	SeverityWarning   = "warning"   // the spec says SHOULD, or the capture itself is odd
)

// Violation is one rule a capture breaks, at one line.
type Violation struct {
	Line int `json:"line"`
	// Conn is the ID of the connection of a version-2 capture the problem
	// is about; "" in version 1.
	Conn     string `json:"connection,omitempty"`
	Session  string `json:"session,omitempty"`
	EventID  string `json:"event_id,omitempty"`
	Rule     string `json:"rule"`    // short name, e.g. "tool-pairing"
	Section  string `json:"section"` // where the spec states it, e.g. "4.5.2"
	Severity string `json:"severity"`
	Message  string `json:"message"` // one sentence; producer text in it is sanitized
	// Pointers are the JSON pointers (RFC 6901) of the members of the
	// message the violation is about, when it is about members; "" is the
	// whole message. Producer text in them is sanitized.
	Pointers []string `json:"pointers,omitempty"`
}

// String is the violation on one line: line, agent (its connection, in a
// capture of several), session, rule, section, explanation.
func (v Violation) String() string {
	where := fmt.Sprintf("line %d", v.Line)
	if v.Conn != "" {
		where += ", agent " + protocol.Name(v.Conn)
	}
	if v.Session != "" {
		where += ", session " + v.Session
	}
	return fmt.Sprintf("%s: %s (%s, spec section %s): %s", where, v.Severity, v.Rule, v.Section, v.Message)
}

// Step is what the checker made of one record; the trace is built from steps.
type Step struct {
	Record     Record
	Type       string          // normalized message type, "" when unknown
	Event      *protocol.Event // nil unless the record is an event that could be decoded
	Msg        map[string]any  // the fields of a non-event message (replies, handshake)
	Violations []Violation
	// notJSON is set by CheckAll's decoding for a record whose message
	// is not JSON (Reader.late): the step is dropped, as the reader drops
	// such a line, with its diagnostic (lateChecks).
	notJSON bool
}

// CheckOptions configures a Checker. The zero value checks everything.
type CheckOptions struct {
	// SchemaOnly checks each message on its own against the schemas and the
	// rules of single events, with no sequencing rules.
	SchemaOnly bool
	// Schemas, if not nil, is used instead of compiling the embedded ones.
	Schemas *protocol.Schemas
}

// Window sizes that keep a checker's memory bounded however long the capture.
const (
	dedupeWindow = 1 << 16 // (agent, event_id) keys remembered
	endedWindow  = 1 << 16 // ended session IDs remembered
	tokenWindow  = 1 << 14 // reply tokens remembered

	maxOpenSessions = 1 << 16 // sessions followed at once

	// toolWindow bounds the tool calls followed, over all sessions: a call
	// still open after this many later tool calls is forgotten.
	toolWindow = 1 << 14
)

// sessionKey is how the checker knows a session: by its connection, its
// agent and its ID together, so that one agent's events are never held
// against another's session of the same ID.
func sessionKey(conn string, ev *protocol.Event) string {
	var buf [128]byte
	return string(appendSessionKey(buf[:0], conn, ev))
}

// appendSessionKey appends the sessionKey of ev to b.
func appendSessionKey(b []byte, conn string, ev *protocol.Event) []byte {
	return append(appendAgentKey(b, conn, ev), ev.SessionID...)
}

// appendAgentKey appends what the keys of ev's session and of ev itself
// begin with: its connection and its agent, each after its length. (Ended
// by a 0 instead, an agent ID holding a 0 and the start of an event ID
// made another agent's key: a false duplicate.)
func appendAgentKey(b []byte, conn string, ev *protocol.Event) []byte {
	b = append(binary.AppendUvarint(b, uint64(len(conn))), conn...)
	return append(binary.AppendUvarint(b, uint64(len(ev.Producer.AgentID))), ev.Producer.AgentID...)
}

// tokenKey is how the checker knows a prompt by its reply token: on its
// connection, since each producer makes its own tokens; the connection
// after its length, as in appendAgentKey.
func tokenKey(conn, token string) string {
	var buf [64]byte
	b := append(binary.AppendUvarint(buf[:0], uint64(len(conn))), conn...)
	return string(append(b, token...))
}

// connCheck is what the checker remembers of one connection's subscription.
type connCheck struct {
	// subscribed is the line of the subscription.accepted received, if any;
	// toldNoHandshake is set once a reply without one was noted.
	subscribed      int
	toldNoHandshake bool
	// withheld names what the honoured terms let the producer leave out of
	// this subscription's stream (prompts it cannot answer, filtered
	// types); "" when they let it leave out nothing.
	withheld string
}

// Checker checks the records of one capture, in order. It is not safe for
// concurrent use.
type Checker struct {
	o        CheckOptions
	dec      protocol.Decoder
	sessions map[string]*sessState // by sessionKey: agent and session ID
	// recent are open sessions of c.sessions met lately, each at the
	// place its key's last byte gives it (session): most events are
	// found here.
	recent    [recentSessions]*sessState
	keyBuf    []byte                // sequence's sessionKey, built without allocating
	toolBuf   []byte                // toolHash's toolKey, likewise
	ended     *ring[string]         // keys of ended sessions, to report events after the end
	seen      keywindow.Window[int] // hashes of agent + event_id, for duplicates: their lines
	seed      maphash.Seed
	tokens    map[string]*confirmation
	tokenIDs  *ring[string]         // bounds tokens
	line      int                   // of the record being checked
	forgotten int                   // open sessions forgotten to bound memory
	calls     calls                 // the last toolWindow tool calls, to bound the open ones
	conns     map[string]*connCheck // by connection ID ("" in version 1)
	// pins are the last sessions given an unconfirmed action, whose
	// strings are a line's (setUnconfirmed); pinNext the one to replace.
	pins    [pinnedActions]pinned
	pinNext uint
}

// withheld is what the terms of the connection id let its producer leave
// out; reading it remembers nothing new.
func (c *Checker) withheld(id string) string {
	if cc := c.conns[id]; cc != nil {
		return cc.withheld
	}
	return ""
}

// conn returns what the checker remembers of the connection id, making
// room for it. Only handshakes and replies do: their number is that of the
// subscriptions and prompts in the capture.
func (c *Checker) conn(id string) *connCheck {
	cc := c.conns[id]
	if cc == nil {
		cc = &connCheck{}
		c.conns[id] = cc
	}
	return cc
}

// NewChecker returns a Checker. It fails only when the embedded schemas do not compile.
func NewChecker(o CheckOptions) (*Checker, error) {
	if o.Schemas == nil {
		s, err := protocol.NewSchemas()
		if err != nil {
			return nil, fmt.Errorf("capture: compile the schemas: %w", err)
		}
		o.Schemas = s
	}
	c := &Checker{o: o, sessions: map[string]*sessState{}, tokens: map[string]*confirmation{}, conns: map[string]*connCheck{}}
	c.dec.Schemas = o.Schemas
	c.ended = newRing[string](endedWindow)
	// A quarter full at most: 4 MB for its 65,536 keys, 2 MB more than
	// half full, for about 50 instructions fewer an event.
	c.seen = keywindow.NewSparse[int](dedupeWindow)
	c.seed = maphash.MakeSeed()
	c.tokenIDs = newRing[string](tokenWindow)
	return c, nil
}

// sessState is what the checker remembers of one live session.
type sessState struct {
	id        string
	conn      string // the connection's ID
	key       string // sessionKey: two agents may use the same session ID
	fromStart bool   // the first event seen was session.started (or number 0)
	firstLine int
	hasSeq    bool
	mixedSeq  bool
	seqKnown  bool
	lastSeq   int64
	// tsKnown is set once an event had a timestamp; lastSec and lastNsec
	// are the latest of them (Unix seconds and nanoseconds), which a
	// later one must not be before.
	tsKnown  bool
	lastSec  int64
	lastNsec int32
	tools    map[uint64]int // toolHash -> line of tool.invoked
	outputs  map[string]*output
	confirms []*confirmation // asked, not yet followed by the action they guard
	decided  *confirmation   // the last decided confirmation awaiting its follow-up
	// unconfirmed is the action of the tool call just before, when no
	// confirmation covered it: a confirmation right after it is its own
	// (deployed order).
	unconfirmed action
	// forgottenTools counts its open tool calls the checker forgot
	// (calls) and has not seen completed since.
	forgottenTools int
}

type output struct {
	lastPos  int64
	complete int // line of the complete chunk, 0 before it
}

type confirmation struct {
	session      string
	key          string // its session's sessionKey
	token        string // tokenKey: connection and reply token
	line         int
	irreversible bool
	names        action // the action the confirmation names, its own copy (action.owned)
	hasToken     bool   // it has a reply token (c.tokens holds it)
	decision     string // "accept" or "reject" once a reply was recorded
	replyLine    int
	consumed     bool
}

// Check checks one record and returns what was made of it.
func (c *Checker) Check(rec Record) Step {
	st := Step{Record: rec}
	c.prepare(&c.dec, &st, nil)
	c.apply(&st)
	return st
}

// stamp names the step's connection in each of its violations: a problem
// is always about the connection its record came from.
func stamp(st *Step) {
	if st.Record.Conn == "" {
		return
	}
	for i := range st.Violations {
		st.Violations[i].Conn = st.Record.Conn
	}
}

// prepare does the part of a check that needs no memory of earlier records,
// on st, which holds only its record: decoding, the schemas and the rules
// of single messages. It may run in another goroutine than apply, with its
// own Decoder. The event is decoded into room, when not nil, else into a
// new one.
func (c *Checker) prepare(dec *protocol.Decoder, st *Step, room *protocol.EventRoom) {
	rec := &st.Record
	if rec.Note {
		return
	}
	if len(rec.Msg) > 0 && rec.Msg[0] == '"' { // rec.IsText(), without a copy of the record

		st.Violations = append(st.Violations, c.v(*rec, "", "", "json", "3.8",
			SeverityViolation, "The frame is not JSON, so it is no AAEP message at all."))
		return
	}
	// The decoder decides what the message is (protocol.KindOf), as the
	// listener's does: a handshake or reply message is judged by its own
	// schema, anything else as an event.
	var ev *protocol.Event
	var err error
	if room != nil {
		ev, err = dec.DecodeInto(rec.Msg, room)
	} else {
		ev, err = dec.Decode(rec.Msg)
	}
	if rec.line != nil {
		// The reader left two questions to the decoding (quickRecord):
		// whether the message is JSON, and whether it is a transport
		// note, which it is not if it decoded as an event (it has a
		// "type").
		if !isJSON(rec.Msg, err) {
			st.notJSON = true
			return
		}
		if err != nil && isNote(rec.Msg) {
			rec.Note = true
			return
		}
	}
	st.Type = dec.PeekedType(rec.Msg, ev)
	if ne := notEvent(err); ne != nil {
		st.Type = ne.Type
		if err := c.o.Schemas.Check(rec.Msg); err != nil {
			if ne.Kind == protocol.KindReply && rec.Dir == Out {
				// The missing subscription is judged in message, which
				// knows whether the capture had a handshake.
				err = withoutMissing(err, "/subscription_id")
			}
			if err != nil {
				c.schemaProblems(st, "", "", err)
			}
		}
		var m map[string]any
		if json.Unmarshal(rec.Msg, &m) == nil {
			st.Msg = m
		}
		return
	}
	session, id := "", ""
	if ev != nil {
		session, id = ev.SessionID, ev.EventID
		// An event without an extension type's prefix that breaks the
		// envelope is judged, but not followed by the sequencing rules.
		if err == nil || strings.Contains(ev.Type, ":") {
			st.Event = ev
		}
	}
	if err != nil {
		c.schemaProblems(st, session, id, err)
	}
	if st.Event != nil {
		c.eventRules(st, ev)
	}
}

// notEvent returns err as a *protocol.NotEventError, or nil. The target
// of errors.As is declared only when there is an error: declared for
// every event, it escaped to the heap, one allocation an event.
func notEvent(err error) *protocol.NotEventError {
	if err == nil {
		return nil
	}
	var ne *protocol.NotEventError
	if errors.As(err, &ne) {
		return ne
	}
	return nil
}

// apply does the part of a check that depends on earlier records.
func (c *Checker) apply(st *Step) {
	c.line = st.Record.Line
	switch {
	case c.o.SchemaOnly:
	case st.Msg != nil:
		c.message(st)
	case st.Event != nil && st.Record.Dir == In:
		c.sequence(st, st.Event)
	}
	stamp(st)
}

// batchSize is how many records CheckAll hands over at a time: 128, so
// that the rooms of the batches on their way (stepBatch, 1.4 KB a record)
// stay a few megabytes. With 256 its goroutines waited and were woken
// half as often (about 500 voluntary context switches for 200,000
// records instead of 1,000), but the rooms, twice as many, are scanned by
// every collection, and the collections came more often: about 150
// instructions an event more.
const batchSize = 128

// CheckAll checks every record of r in order, calling fn with each step;
// Finish is left to the caller. It is CheckSteps with each step handed
// over by value, and each record's line an allocation of its own: its
// callers (BuildStats, BuildTrace) keep strings of many records.
//
// A step's Event is valid only until fn returns (CheckSteps).
func (c *Checker) CheckAll(r *Reader, fn func(Step)) error {
	return c.checkSteps(r, func(st *Step) { fn(*st) }, false)
}

// CheckSteps checks every record of r in order, calling fn with each step;
// Finish is left to the caller. Reading, decoding and the sequencing rules
// run as a pipeline: one goroutine reads, one per processor (up to four)
// decodes, and the calling one applies the sequencing rules in order. It returns the error that stopped
// the reading, if any; io.EOF is no error.
//
// A step's Event is valid only until fn returns: its memory is used again
// for a later record (a new event for every record was most of what the
// check allocated). Its strings, which share the record's bytes, stay
// valid; fn keeps a Clone of an event it needs later. The step itself is
// valid only until fn returns too: fn gets a pointer into a batch of
// steps, which is used again (a step is 184 bytes, and handing each over
// by value, as CheckAll does, cost 55 instructions an event).
//
// The records' lines are copied into shared blocks of 32 KB (Reader's
// keepLine): a string of a step that fn keeps, valid as it is, keeps its
// whole block alive. fn copies what it keeps of many records
// (strings.Clone), as the checker does, or memory grows by a block for
// each; the violations the checker makes are its own copies.
func (c *Checker) CheckSteps(r *Reader, fn func(*Step)) error {
	return c.checkSteps(r, fn, true)
}

// checkSteps is CheckSteps; share tells whether the lines are copied into
// shared blocks (Reader.shareLines).
func (c *Checker) checkSteps(r *Reader, fn func(*Step), share bool) error {
	done := make(chan struct{})
	defer close(done)
	// Decoding is most of the work: it runs on as many goroutines as
	// there are processors (up to four), each with its own decoder. The
	// batches are dealt to them in turn and their results taken in the
	// same turn, so the steps keep the records' order.
	workers := min(max(runtime.GOMAXPROCS(0), 1), 4)
	ins, outs := make([]chan *stepBatch, workers), make([]chan *stepBatch, workers)
	// The batches go round: each is handed back once done with. The
	// reader puts its records in a batch's steps, a decoder prepares
	// them in place. The free batches' channel holds as many as can be
	// on their way at once (one being filled, two waiting for each
	// decoder, one in each, two waiting after each, one being applied),
	// so none is ever dropped and made again.
	free := make(stepBatches, 5*workers+2)
	for w := range workers {
		ins[w], outs[w] = make(chan *stepBatch, 2), make(chan *stepBatch, 2)
		go func(in <-chan *stepBatch, out chan<- *stepBatch) {
			defer close(out)
			dec := protocol.Decoder{Schemas: c.o.Schemas}
			for batch := range in {
				for i := range batch.steps {
					c.prepare(&dec, &batch.steps[i], &batch.rooms[i])
				}
				if !send(out, batch, done) {
					return
				}
			}
		}(ins[w], outs[w])
	}
	// The reader leaves two checks to this pipeline, made below in the
	// records' order: whether a record's message is JSON, which its
	// decoding decides (its bytes are scanned once), and its time.
	late := lateChecks{lastT: r.lastT}
	r.late, r.shareLines = true, share
	var readErr error // written before the workers' inputs are closed
	go func() {
		defer func() {
			for _, in := range ins {
				close(in)
			}
		}()
		batch, n := free.get(), 0
		for {
			// The record is read into its step (cleared by put, or new).
			i := len(batch.steps)
			batch.steps = batch.steps[:i+1]
			if err := r.next(&batch.steps[i].Record); err != nil {
				batch.steps = batch.steps[:i]
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				break
			}
			if len(batch.steps) == batchSize {
				if !send(ins[n%workers], batch, done) {
					return
				}
				batch, n = free.get(), n+1
			}
		}
		if len(batch.steps) > 0 {
			send(ins[n%workers], batch, done)
		}
	}()
	for n := 0; ; n++ {
		b, ok := <-outs[n%workers]
		if !ok {
			break // the batches dealt before it are all taken
		}
		for i := range b.steps {
			st := &b.steps[i]
			if !late.admit(r, st) {
				continue
			}
			c.apply(st)
			fn(st)
		}
		free.put(b)
	}
	r.endLate(&late) // the reading is over: the workers' outputs are closed
	r.shareLines, r.block = false, nil
	return readErr
}

// stepBatch is a batch of CheckAll's steps with the rooms their events are
// decoded into (rooms[i] is steps[i]'s). Batches go round, rooms and all,
// from the reader to a decoder to the sequencing rules and back, so that
// no record allocates its event or its step.
type stepBatch struct {
	steps []Step
	rooms [batchSize]protocol.EventRoom
}

// stepBatches holds the batches that were done with, to be taken again
// instead of new ones.
type stepBatches chan *stepBatch

// get returns an empty batch.
func (b stepBatches) get() *stepBatch {
	select {
	case s := <-b:
		return s
	default:
		return &stepBatch{steps: make([]Step, 0, batchSize)}
	}
}

// put hands s back, its steps cleared so that they keep nothing alive,
// unless enough are waiting already. Its rooms are emptied by the next
// event decoded into each; until then they keep their last events' lines
// alive, a bounded number (CheckAll's batches are).
func (b stepBatches) put(s *stepBatch) {
	clear(s.steps)
	s.steps = s.steps[:0]
	select {
	case b <- s:
	default:
	}
}

// send hands v over on ch unless done is closed first.
func send[T any](ch chan<- T, v T, done <-chan struct{}) bool {
	select {
	case ch <- v:
		return true
	case <-done:
		return false
	}
}

// message notes the decisions a recorded subscriber sent.
func (c *Checker) message(st *Step) {
	m := st.Msg
	if st.Record.Dir == In && st.Type == protocol.TypeSubscriptionAccepted {
		cc := c.conn(st.Record.Conn)
		cc.subscribed = st.Record.Line
		cc.withheld = withheld(m)
	}
	if st.Record.Dir == Out && protocol.KindOf(st.Type) == protocol.KindReply {
		c.replySubscription(st)
	}
	if st.Type != protocol.TypeConfirmationReply || st.Record.Dir != Out {
		return
	}
	token, _ := m["reply_token"].(string)
	decision, _ := m["decision"].(string)
	conf := c.tokens[tokenKey(st.Record.Conn, token)]
	if conf == nil {
		return // a reply to a prompt the capture did not see
	}
	if conf.decision != "" {
		st.Violations = append(st.Violations, c.v(st.Record, conf.session, "", "reply-once", "6.3.5", SeverityWarning,
			fmt.Sprintf("A second reply to the confirmation of line %d was sent; the producer keeps the first.", conf.line)))
		return
	}
	conf.decision, conf.replyLine = decision, st.Record.Line
	if s := c.sessions[conf.key]; s != nil {
		s.decided = conf
	}
}

// withheld reads an accepted subscription's honoured terms: what they let
// the producer leave out of the stream, in words, or "" for nothing. A
// subscription that cannot answer is sent no prompts (spec §5.3.1.4 and
// §5.3.1.5, absent means false), and filters leave types out (§5.3.1.7):
// the session's sequence numbers then skip what was left out.
func withheld(accepted map[string]any) string {
	honored, _ := accepted["honored_capabilities"].(map[string]any)
	var what []string
	if v, _ := honored["supports_confirmation_reply"].(bool); !v {
		what = append(what, "confirmations")
	}
	if v, _ := honored["supports_clarification_reply"].(bool); !v {
		what = append(what, "questions")
	}
	if f, _ := honored["event_filters"].(map[string]any); len(f) > 0 {
		what = append(what, "the event types it filters out")
	}
	return strings.Join(what, ", ")
}

// replySubscription judges a sent reply that names no subscription: a
// violation after a handshake gave one, and otherwise (the deployed layout,
// which has no handshake) no fault of the reply: the capture is told, once,
// to have no handshake.
func (c *Checker) replySubscription(st *Step) {
	if _, ok := st.Msg["subscription_id"]; ok {
		return
	}
	cc := c.conn(st.Record.Conn)
	switch {
	case cc.subscribed > 0:
		st.Violations = append(st.Violations, c.v(st.Record, "", "", "schema", "6.3", SeverityViolation,
			fmt.Sprintf("The reply names no subscription_id, though the handshake of line %d gave one.", cc.subscribed)))
	case !cc.toldNoHandshake:
		cc.toldNoHandshake = true
		st.Violations = append(st.Violations, c.v(st.Record, "", "", "no-handshake", "5", SeverityWarning,
			"The capture has no handshake (the deployed layout), so replies name no subscription."))
	}
}

// withoutMissing returns err without the problem "member ptr is missing",
// or nil when that was its only problem.
func withoutMissing(err error, ptr string) error {
	var ve *protocol.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	kept := &protocol.ValidationError{}
	for _, p := range ve.Problems {
		if p.Pointer == ptr && strings.HasPrefix(p.Message, "is missing") {
			continue
		}
		kept.Problems = append(kept.Problems, p)
	}
	if len(kept.Problems) == 0 {
		return nil
	}
	return kept
}

// schemaProblems reports every problem the schemas found: members at the
// top level of a core event that its type does not define as one
// violation of spec section 7.2, the others as one schema violation.
// Only a problem an event rule reports in its own words (explained) is
// left to that rule.
func (c *Checker) schemaProblems(st *Step, session, id string, err error) {
	var ve *protocol.ValidationError
	if !errors.As(err, &ve) {
		st.Violations = append(st.Violations, c.v(st.Record, session, id, "schema", "3.9", SeverityViolation,
			"The message cannot be decoded: "+protocol.Sanitize(err.Error())+"."))
		return
	}
	var parts, ptrs, members []string
	for _, p := range ve.Problems {
		ptr := keep(oneLine(protocol.Sanitize(p.Pointer)))
		switch {
		case st.Event != nil && explained(st.Event, p.Pointer):
		case p.Code == protocol.ProblemUndefinedMember:
			members = append(members, ptr)
		default:
			where := p.Pointer
			if where == "" {
				where = "the message"
			}
			parts = append(parts, protocol.Sanitize(where+": "+p.Message))
			ptrs = appendNew(ptrs, ptr)
		}
	}
	if len(parts) > 0 {
		section := "3.9"
		if st.Event != nil && st.Event.Type != "" {
			section = sectionOf(st.Event.Type)
		} else if protocol.KindOf(st.Type) != protocol.KindEvent {
			section = sectionOf(st.Type)
		}
		v := c.v(st.Record, session, id, "schema", section, SeverityViolation,
			"The message breaks the schema: "+strings.Join(parts, "; ")+".")
		v.Pointers = ptrs
		st.Violations = append(st.Violations, v)
	}
	if len(members) > 0 {
		typ := "this event type"
		if st.Event != nil {
			typ = typeName(st.Event.Type)
		}
		v := c.v(st.Record, session, id, "top-level-member", "7.2", SeverityViolation,
			fmt.Sprintf("%s defines no top-level member %s; extension data belongs in the extensions object, under its prefix.",
				typ, strings.Join(members, ", ")))
		v.Pointers = members
		st.Violations = append(st.Violations, v)
	}
}

// explained reports whether eventRules reports the schema problem at ptr of
// ev in its own words: a critical type's urgency (critical-urgency) and the
// accept default of an irreversible medium- or high-risk confirmation
// (default-decision). Every other problem is reported as the schema's.
func explained(ev *protocol.Event, ptr string) bool {
	switch ptr {
	case "/urgency":
		return protocol.CriticalType(ev.Type)
	case "/default_decision":
		return mustDefaultReject(ev) && ev.DefaultDecision == protocol.DecisionAccept
	}
	return false
}

// mustDefaultReject reports whether ev is a confirmation of an irreversible
// medium- or high-risk action, which must default to reject (spec 6.4.1).
func mustDefaultReject(ev *protocol.Event) bool {
	irreversible := ev.Undo().CannotBeUndone()
	return ev.Type == protocol.TypeAwaitingConfirmation && irreversible && (ev.RiskLevel == "high" || ev.RiskLevel == "medium")
}

// appendNew appends s unless list holds it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// eventRules checks the rules that concern one event on its own.
func (c *Checker) eventRules(st *Step, ev *protocol.Event) {
	session, id := ev.SessionID, ev.EventID
	if protocol.CriticalType(ev.Type) && ev.Urgency != protocol.UrgencyCritical {
		got := string(ev.Urgency)
		if got == "" {
			got = "none"
		}
		v := c.v(st.Record, session, id, "critical-urgency", sectionOf(ev.Type), SeverityViolation,
			fmt.Sprintf("%s must have urgency critical, but has %s.", typeName(ev.Type), protocol.Sanitize(got)))
		v.Pointers = []string{"/urgency"}
		st.Violations = append(st.Violations, v)
	}
	if ev.Type != protocol.TypeAwaitingConfirmation || ev.DefaultDecision != protocol.DecisionAccept {
		return
	}
	irreversible := ev.Undo().CannotBeUndone()
	switch {
	case mustDefaultReject(ev):
		v := c.v(st.Record, session, id, "default-decision", "6.4.1", SeverityViolation,
			fmt.Sprintf("An irreversible %s-risk action must default to reject on timeout, not accept.", ev.RiskLevel))
		v.Pointers = []string{"/default_decision"}
		st.Violations = append(st.Violations, v)
	case irreversible && ev.RiskLevel == "low":
		st.Violations = append(st.Violations, c.v(st.Record, session, id, "default-decision", "6.4.1", SeverityWarning,
			"An irreversible action should default to reject on timeout, even at low risk."))
	case !irreversible && ev.RiskLevel == "high":
		st.Violations = append(st.Violations, c.v(st.Record, session, id, "default-decision", "6.4.1", SeverityWarning,
			"A high-risk action should default to reject on timeout."))
	}
}

// v builds a Violation. session and id are as the producer sent them:
// they are sanitized here, only for a violation (not for every event).
// Its message is one line, whatever producer text is in it.
func (c *Checker) v(rec Record, session, id, rule, section, severity, msg string) Violation {
	return Violation{Line: rec.Line, Session: keep(protocol.Sanitize(session)), EventID: keep(protocol.Sanitize(id)), Rule: rule, Section: section,
		Severity: severity, Message: oneLine(msg)}
}

// keep is a copy of s, a string that may be cut from a record's line, to
// be kept beyond the record's step: cut from a line of CheckSteps, it
// would keep the line's whole block alive (Reader.keepLine). Sanitize
// returns a clean string as it is.
func keep(s string) string { return strings.Clone(s) }

// lineBreaks turns every line break Sanitize leaves into a space.
var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ")

// oneLine folds the line breaks of s, so producer text cannot start a line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\u2028\u2029") {
		return s
	}
	return lineBreaks.Replace(s)
}

// sectionOf returns the spec section defining a message type.
func sectionOf(typ string) string {
	switch typ {
	case protocol.TypeSessionStarted:
		return "4.1.1"
	case protocol.TypeSessionCompleted:
		return "4.1.2"
	case protocol.TypeSessionErrored:
		return "4.1.3"
	case protocol.TypeSessionCancelled:
		return "4.1.4"
	case protocol.TypeStateChanged:
		return "4.2.1"
	case protocol.TypeProgressUpdated:
		return "4.2.2"
	case protocol.TypeToolInvoked:
		return "4.3.1"
	case protocol.TypeToolCompleted:
		return "4.3.2"
	case protocol.TypeOutputStreaming:
		return "4.3.3"
	case protocol.TypeAwaitingConfirmation:
		return "4.4.1"
	case protocol.TypeAwaitingClarify:
		return "4.4.2"
	case protocol.TypeHandoffRequested:
		return "4.4.3"
	case protocol.TypeSubscriptionRequest:
		return "5.2"
	case protocol.TypeSubscriptionAccepted:
		return "5.4"
	case protocol.TypeSubscriptionRejected:
		return "5.5"
	case protocol.TypeSubscriptionRenegotiate:
		return "5.7"
	case protocol.TypeSubscriptionClose:
		return "5.8"
	case protocol.TypeConfirmationReply:
		return "6.3"
	case protocol.TypeClarificationReply:
		return "6.5"
	case protocol.TypeTask, protocol.TypeTaskCancel, protocol.TypeTaskRefused:
		return "7.1" // an extension's messages, judged by its own schemas
	}
	return "3.9"
}

// typeName is an event type as people read it: "tool.invoked".
func typeName(typ string) string {
	return protocol.Sanitize(strings.TrimPrefix(typ, "aaep:agent."))
}

// ring is a bounded set: adding a key past its size forgets the oldest.
// Its keys grow with use, up to its size: made whole at the start, the
// two rings of a checker were 1.3 MB of empty strings that every
// collection scanned, in a capture where no session ends.
type ring[K comparable] struct {
	set  map[K]int // key -> line
	keys []K       // in the order added; once size of them, a circle
	size int
	next int // the key to forget next, once full
}

func newRing[K comparable](size int) *ring[K] {
	return &ring[K]{set: map[K]int{}, size: size}
}

// add remembers k at line. It returns the line k was remembered at before
// (0 if it was not, in which case it is added), and the key it forgot to
// make room, if any.
func (r *ring[K]) add(k K, line int) (prev int, forgot K, didForget bool) {
	if prev, ok := r.set[k]; ok {
		return prev, forgot, false
	}
	r.set[k] = line
	if len(r.keys) < r.size {
		r.keys = append(r.keys, k)
		return 0, forgot, false
	}
	forgot, didForget = r.keys[r.next], true
	delete(r.set, forgot)
	r.keys[r.next] = k
	r.next = (r.next + 1) % r.size
	return 0, forgot, didForget
}

func (r *ring[K]) has(k K) bool { _, ok := r.set[k]; return ok }
