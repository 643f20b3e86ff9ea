package conform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// prompt is one prompt the suite sent and what came of it.
type prompt struct {
	n       int
	typ     string // the event type
	token   string
	choices []string // clarification: the values offered
	// answer is what the user answers: "accept", "reject", or a choice's
	// value; "" for the prompt nobody answers, watched to its timeout.
	answer  string
	word    string // the word marking it
	unseen  bool   // not announced before the user answered it
	frame   json.RawMessage
	sent    time.Duration
	watched time.Duration // how long replies were watched for before the user acted
	acted   time.Duration // when the user acted; 0: never
	early   []heard       // replies heard before the user acted
	reply   heard
	replied bool
}

// marked is an event whose announcement the suite looks for in what the
// subscriber writes: every summary of it carries word, which nothing else
// carries.
type marked struct {
	word string
	typ  string
	sent bool // false when the subscriber's filters kept it back
}

// facts are what the scripted session observed; judge turns them into
// results.
type facts struct {
	request        heard
	handshake      bool // a subscription.request came
	connected      bool
	bare           bool // the stream was opened without a subscription
	prompts        []*prompt
	streamsBefore  int // streams opened before the unknown events
	streamsAfter   int
	renegAsked     bool
	renegAskedAt   time.Duration
	reneg          heard
	renegHeard     bool
	closeHow       string // "standard input closed", "SIGINT", "" when not tried
	closeMsg       heard
	closeHeard     bool
	endedEarly     bool // the subscriber run by Exec ended before it was told to
	unaskedRenegos int
	transcript     []Evidence // the whole session
	dropped        int        // messages counted beyond maxHeard, not kept

	// What the subscriber run by Exec wrote, and the marked events of
	// the script by role: "started", "tool", "unknown", "extension",
	// "after", "duplicate", "first", "second", "completed", "errored",
	// "cancelled".
	output   string
	marks    map[string]*marked
	lastSeen bool // the last marked event was announced before shutdown
	// The critical event after a burst of background events: how many,
	// when it was flushed and when it was first seen announced (0: not
	// within o.Window).
	burst                    int
	erroredSent, erroredSaid time.Duration
}

// maxBurst bounds the burst of background events before the critical one.
const maxBurst = 50

// burstSize is the honored rate of the subscription asked for in req, at
// most maxBurst: the background events one second allows.
func burstSize(req heard) int {
	rate := 20 // a stream without a handshake: the default terms
	switch r := lowerTerms(capabilities(req))["max_events_per_second"].(type) {
	case int:
		rate = r
	case float64:
		rate = int(r)
	}
	return max(1, min(rate, maxBurst))
}

// The roles of the marked events the tests of announcements read.
const (
	markStarted   = "started"
	markTool      = "tool"
	markUnknown   = "unknown"
	markExtension = "extension"
	markAfter     = "after"
	markDuplicate = "duplicate"
	markFirst     = "first"  // sent second, numbered first
	markSecond    = "second" // sent first, numbered second
	markCompleted = "completed"
	markErrored   = "errored"
	markCancelled = "cancelled"
)

// play runs the scripted session: handshake (or none, at Level 1), three
// sessions with the events a subscriber must announce, the prompts, the
// unknown events, a duplicate, two events out of order, a change of
// terms, shutdown.
func play(ctx context.Context, st *stage, o SubscriberOptions, user *typist) *facts {
	f := &facts{marks: map[string]*marked{}}
	if !connect(ctx, st, o, user, f) {
		return f
	}
	// The words marking events start with Z, which no ID the suite makes
	// (hexadecimal) holds.
	tag := "Z" + strings.ToUpper(randLetters(3))
	a := newScriptEvents()
	caps := capabilities(f.request)
	// build makes one event of session s; a marked one carries its word
	// in every summary. It reports whether the subscriber's filters let
	// it through (critical events always go).
	build := func(s *scriptEvents, role, typ, text string, fields map[string]any) (map[string]any, bool) {
		if role != "" {
			m := &marked{word: tag + fmt.Sprintf("%02d", len(f.marks)), typ: typ}
			f.marks[role] = m
			text += " Ref " + m.word + "."
		}
		ev := s.next(typ, text, fields)
		ok := st.wants(typ, ev["urgency"] == "critical")
		if role != "" {
			f.marks[role].sent = ok
		}
		return ev, ok
	}
	send := func(s *scriptEvents, role, typ, text string, fields map[string]any) map[string]any {
		ev, ok := build(s, role, typ, text, fields)
		if ok {
			st.send(ev)
		}
		return ev
	}
	send(a, markStarted, protocol.TypeSessionStarted, "The conformance suite starts a scripted session.", map[string]any{"request_text": "Test this subscriber."})
	send(a, "", protocol.TypeStateChanged, "Thinking about what to do.", map[string]any{"from_state": "idle", "to_state": "thinking"})
	send(a, "", protocol.TypeStateChanged, "Calling a tool.", map[string]any{"from_state": "thinking", "to_state": "calling_tool"})
	send(a, markTool, protocol.TypeToolInvoked, "Reading the file notes.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_1"})
	send(a, "", protocol.TypeToolCompleted, "Read notes.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_1", "status": "success"})

	// Prompts go only to a subscriber that said it can answer them
	// (§5.3.1.4), at Level 2 and above: one nobody answers, watched to its
	// timeout, then one the user rejects, one the user accepts and a
	// question the user answers with the choice that is not the default.
	if o.Level >= 2 && boolCap(caps, "supports_confirmation_reply") {
		confirm := func(answer string, timeout int) {
			p := &prompt{n: len(f.prompts) + 1, typ: protocol.TypeAwaitingConfirmation, token: newToken(), answer: answer}
			f.prompts = append(f.prompts, p)
			role := fmt.Sprintf("prompt%d", p.n)
			ev, _ := build(a, role, p.typ, fmt.Sprintf("Please confirm: delete the file draft-%d.txt? This cannot be undone.", p.n), map[string]any{
				"reply_token": p.token, "action": fmt.Sprintf("Delete the file draft-%d.txt.", p.n),
				"consequence": "The file is gone for good.", "timeout_seconds": timeout,
				"default_decision": "reject", "risk_level": "high", "irreversible": true,
				"allowed_replies": []string{"accept", "reject"}, "correlation_id": fmt.Sprintf("delete-draft-%d", p.n)})
			p.word = f.marks[role].word
			ask(ctx, st, o, user, f.prompts[:len(f.prompts)-1], p, ev)
			send(a, "", protocol.TypeStateChanged, "Back to work after the confirmation.", map[string]any{"from_state": "awaiting_input", "to_state": "calling_tool"})
			if p.replied && decision(p) == protocol.DecisionAccept { // the action, as a producer takes it once accepted
				call := fmt.Sprintf("call_delete%d", p.n)
				send(a, "", protocol.TypeToolInvoked, fmt.Sprintf("Deleting the file draft-%d.txt.", p.n), map[string]any{
					"tool": "delete_file", "tool_call_id": call, "risk_level": "high", "irreversible": true, "correlation_id": fmt.Sprintf("delete-draft-%d", p.n)})
				send(a, "", protocol.TypeToolCompleted, fmt.Sprintf("Deleted draft-%d.txt.", p.n), map[string]any{"tool": "delete_file", "tool_call_id": call, "status": "success"})
			}
		}
		confirm("", int(math.Ceil(o.Window.Seconds())))
		confirm(protocol.DecisionReject, 120)
		confirm(protocol.DecisionAccept, 120)
	}
	if o.Level >= 2 && boolCap(caps, "supports_clarification_reply") {
		question := func(q, answer string, choices []string, fields map[string]any) {
			p := &prompt{n: len(f.prompts) + 1, typ: protocol.TypeAwaitingClarify, token: newToken(), choices: choices, answer: answer}
			f.prompts = append(f.prompts, p)
			role := fmt.Sprintf("prompt%d", p.n)
			fields["reply_token"], fields["timeout_seconds"] = p.token, 120
			ev, _ := build(a, role, p.typ, q, fields)
			p.word = f.marks[role].word
			ev["question"] = q + " Ref " + p.word + "." // what some subscribers say instead of the summary
			ask(ctx, st, o, user, f.prompts[:len(f.prompts)-1], p, ev)
			send(a, "", protocol.TypeStateChanged, "Back to work after the question.", map[string]any{"from_state": "awaiting_input", "to_state": "calling_tool"})
		}
		question("Which colour should the chart use: blue or green?", "green", []string{"blue", "green"}, map[string]any{
			"accepted_response_kinds": []string{"multiple_choice"},
			"choices":                 []map[string]string{{"value": "blue", "label": "blue"}, {"value": "green", "label": "green"}},
			"default_response":        "blue"})
		question("What should the chart be titled?", "Quarterly sales by region", nil, map[string]any{
			"accepted_response_kinds": []string{"freetext"}, "default_response": "Chart"})
	}

	f.streamsBefore = streams(st)
	unknownExt := map[string]any{"https://aaep-conform.example/ext/v1": map[string]any{"probe": true, "unknown": map[string]any{"x": []int{1, 2}}}}
	send(a, markUnknown, probeType, "An event of a type this subscriber cannot know.", map[string]any{
		"@context": []string{protocol.ContextURL, probeContext}, "probe": map[string]any{"depth": []any{1, "two", nil}}, "extensions": unknownExt})
	send(a, markExtension, protocol.TypeToolInvoked, "Listing the folder, with an extension the subscriber does not know.",
		map[string]any{"tool": "list_folder", "tool_call_id": "call_2", "extensions": unknownExt})
	send(a, "", protocol.TypeToolCompleted, "Listed the folder.", map[string]any{"tool": "list_folder", "tool_call_id": "call_2", "status": "success"})
	send(a, markAfter, protocol.TypeToolInvoked, "Reading the file todo.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_3"})
	send(a, "", protocol.TypeToolCompleted, "Read todo.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_3", "status": "success"})

	// The same event twice, as a retrying transport delivers it (§3.2.3):
	// it is announced once.
	dup := send(a, markDuplicate, protocol.TypeToolInvoked, "Reading the file plan.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_4"})
	if f.marks[markDuplicate].sent {
		st.send(dup)
	}
	send(a, "", protocol.TypeToolCompleted, "Read plan.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_4", "status": "success"})
	// Two events the other way round, as a transport that does not keep
	// order delivers them (§3.4.1): announced in their order.
	first, ok1 := build(a, markFirst, protocol.TypeToolInvoked, "Reading the file a.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_5"})
	second, ok2 := build(a, markSecond, protocol.TypeToolInvoked, "Reading the file b.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_6"})
	if ok1 && ok2 {
		st.send(second)
		st.send(first)
	}
	send(a, "", protocol.TypeToolCompleted, "Read b.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_6", "status": "success"})
	send(a, "", protocol.TypeToolCompleted, "Read a.txt.", map[string]any{"tool": "read_file", "tool_call_id": "call_5", "status": "success"})

	if user != nil && o.Level >= 3 {
		mark := st.mark()
		f.renegAsked, f.renegAskedAt = true, st.since()
		user.say(o.RenegotiateLine)
		f.reneg, f.renegHeard = st.await(ctx, mark, o.Patience, isType(protocol.TypeSubscriptionRenegotiate))
	}

	// Three sessions end in the three ways, with summaries that differ
	// only in their reference: the subscriber must tell them apart.
	const over = "The session is over."
	send(a, markCompleted, protocol.TypeSessionCompleted, over, nil)
	b := newScriptEvents()
	send(b, "", protocol.TypeSessionStarted, "A second scripted session starts.", nil)
	// A burst of as many background events as the honored rate allows in a
	// second (at most maxBurst), then the critical event: it must not
	// wait behind them (§9.5.2: critical events under backpressure).
	f.burst = burstSize(f.request)
	for i := range f.burst {
		send(b, "", protocol.TypeProgressUpdated, fmt.Sprintf("Working through step %d.", i+1), map[string]any{"urgency": "background", "progress": map[string]any{"step": i + 1, "total_steps": f.burst}})
	}
	if ev, ok := build(b, markErrored, protocol.TypeSessionErrored, over, map[string]any{"error_category": "permanent"}); ok {
		i := st.send(ev)
		if at, ok := st.delivered(ctx, i, o.Patience); ok && user != nil {
			f.erroredSent = at
			if st.announced(ctx, f.marks[markErrored].word, o.Window) {
				f.erroredSaid = st.since()
			}
		}
	}
	c := newScriptEvents()
	send(c, "", protocol.TypeSessionStarted, "A third scripted session starts.", nil)
	send(c, markCancelled, protocol.TypeSessionCancelled, over, map[string]any{"cancelled_by": "user"})
	if user != nil {
		f.lastSeen = st.announced(ctx, f.marks[markCancelled].word, o.Patience)
		f.endedEarly = !user.running()
	}
	shutdown(ctx, st, o, user, f)
	f.output = st.output()
	return f
}

// The event type no subscriber knows: in a namespace of its own (§7.4),
// which the context the event names defines.
const (
	probeType    = "conformprobe:probe.observed"
	probeContext = "https://aaep-conform.example/context/v1"
)

// connect waits for the subscriber: a subscription.request and then the
// stream it names, or (Level 1 needs no handshake, §9.3.3) a stream
// opened without one. It reports whether a stream is open.
func connect(ctx context.Context, st *stage, o SubscriberOptions, user *typist, f *facts) bool {
	wait := 3 * o.Patience // a program starting on a busy machine; no cost when it comes at once
	t := time.NewTimer(wait)
	defer t.Stop()
	requested := make(chan heard, 1)
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		if h, ok := st.await(waitCtx, 0, wait, isType(protocol.TypeSubscriptionRequest)); ok {
			requested <- h
		}
	}()
	select {
	case f.request = <-requested:
		f.handshake = true
	case <-st.streamUp:
		f.connected = true
		st.mu.Lock()
		f.bare = st.bare
		st.mu.Unlock()
		if f.bare {
			st.note("note", nil, "an event stream was opened without a subscription.request: the default terms apply (Level 1)")
			return true
		}
		// a stream of the subscription: its request came first
		f.request, f.handshake = st.await(ctx, 0, 0, isType(protocol.TypeSubscriptionRequest))
		return true
	case <-t.C:
		st.note("note", nil, fmt.Sprintf("no subscription.request and no event stream within %v", wait))
		return false
	case <-ctx.Done():
		return false
	}
	select {
	case <-st.streamUp:
		f.connected = true
	case <-t.C:
		st.note("note", nil, fmt.Sprintf("no event stream opened within %v of the start", wait))
	case <-ctx.Done():
	}
	return f.connected
}

// ask sends prompt p and watches for a reply nobody asked for: until its
// timeout has passed and a second more for the prompt nobody answers,
// else until the user acts, once the subscriber has announced it. Then
// (with Exec) it types the user's answer and waits for the reply.
func ask(ctx context.Context, st *stage, o SubscriberOptions, user *typist, earlier []*prompt, p *prompt, ev map[string]any) {
	mark := st.mark()
	p.frame, _ = json.Marshal(ev)
	i := st.send(ev)
	at, ok := st.delivered(ctx, i, o.Patience)
	if !ok {
		st.note("note", nil, fmt.Sprintf("prompt %d was not written to any stream within %v", p.n, o.Patience))
		at = st.since()
	}
	p.sent = at                      // watched from when the prompt was flushed
	anyReply := func(h heard) bool { // but a late reply to an earlier prompt
		return isReply(h) && !slices.ContainsFunc(earlier, func(e *prompt) bool { return strings.Contains(string(h.raw), e.token) })
	}
	if p.answer == "" {
		timeout, _ := ev["timeout_seconds"].(int)
		p.watched = time.Duration(timeout)*time.Second + time.Second
		if h, ok := st.await(ctx, mark, p.watched, anyReply); ok {
			p.early = append(p.early, h)
		}
		return
	}
	// The user answers what was said: once the prompt is announced (or,
	// if it never is, once the subscriber has had o.Patience to).
	wait := o.Patience
	if slices.ContainsFunc(earlier, func(e *prompt) bool { return e.unseen }) {
		wait = 0 // it did not announce an earlier one: no use waiting again
	}
	if user != nil && !st.announced(ctx, p.word, wait) {
		p.unseen = true
		st.note("note", nil, fmt.Sprintf("prompt %d was not announced within %v; the user answers it all the same", p.n, wait))
	}
	// Nobody has acted yet: a reply already there came on its own. What
	// comes from here on counts as after the user acted (typed). Marked
	// after this look, a reply that came between it and the user's line
	// was counted neither way, and the suite waited for it in vain ("no
	// reply within 10s" to an --auto-reply under load).
	typed := st.mark()
	if h, ok := st.await(ctx, mark, 0, anyReply); ok {
		p.early = append(p.early, h)
	}
	p.watched = st.since() - p.sent
	if user == nil {
		return
	}
	line := o.AcceptLine
	switch {
	case p.typ == protocol.TypeAwaitingClarify:
		line = o.AnswerLine
	case p.answer == protocol.DecisionReject:
		line = o.RejectLine
	}
	line = strings.NewReplacer("{n}", fmt.Sprint(p.n), "{token}", p.token, "{text}", p.answer).Replace(line)
	p.acted = st.since()
	user.say(line)
	// The first reply after the user acted that is not to an earlier
	// prompt is this prompt's, whatever token it carries; a subscriber that
	// replied on its own before is not waited for again.
	wait = o.Patience
	if len(p.early) > 0 {
		wait = 0
	}
	p.reply, p.replied = st.await(ctx, typed, wait, anyReply)
	if !p.replied && len(p.early) > 0 {
		p.reply, p.replied = p.early[0], true
	}
}

// shutdown tells the subscriber run by Exec to stop, as o.Shutdown says,
// and waits for its subscription.close.
func shutdown(ctx context.Context, st *stage, o SubscriberOptions, user *typist, f *facts) {
	if user != nil {
		mark := st.mark()
		isClose := isType(protocol.TypeSubscriptionClose)
		if o.Shutdown != ShutdownInterrupt {
			f.closeHow = "standard input closed"
			user.endInput()
			wait := o.Patience
			if o.Shutdown == "" {
				wait /= 2
			}
			f.closeMsg, f.closeHeard = st.await(ctx, mark, wait, isClose)
		}
		if !f.closeHeard && o.Shutdown != ShutdownStdin && user.running() {
			f.closeHow = strings.TrimPrefix(f.closeHow+", then SIGINT", ", then ")
			user.interrupt()
			f.closeMsg, f.closeHeard = st.await(ctx, mark, o.Patience/2, isClose)
		}
		st.note("note", nil, "shutdown: "+f.closeHow)
	}
	f.streamsAfter = streams(st)
	for _, h := range st.heardAll() {
		if h.typ == protocol.TypeSubscriptionRenegotiate && (!f.renegAsked || h.at < f.renegAskedAt) {
			f.unaskedRenegos++
		}
	}
}

func streams(st *stage) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.streams
}

// scriptEvents makes the envelopes of one scripted session, numbered from
// 0 on agent.session.started (§3.4.1), stamped to the millisecond (§3.2.5).
type scriptEvents struct {
	session string
	seq     int
}

func newScriptEvents() *scriptEvents { return &scriptEvents{session: "sess_" + randHex(8)} }

// timestampLayout is RFC 3339 in UTC with three fractional digits, the
// precision §3.2.5 recommends.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// next makes the next event of the session, of type typ; text, unless
// empty, is every summary of it.
func (e *scriptEvents) next(typ, text string, fields map[string]any) map[string]any {
	ev := map[string]any{
		"@context": protocol.ContextURL, "aaep_version": protocol.Version, "type": typ,
		"event_id": fmt.Sprintf("evt_%s%04d", e.session[5:], e.seq), "session_id": e.session,
		"sequence_number": e.seq, "timestamp": time.Now().UTC().Format(timestampLayout),
		"producer": stageAgent, "urgency": "normal",
		"localization_hints": map[string]string{"primary_language": "en-US", "text_direction": "ltr"},
	}
	e.seq++
	if protocol.CriticalType(typ) {
		ev["urgency"] = "critical"
	}
	if text != "" {
		ev["summary_terse"], ev["summary_normal"], ev["summary_detailed"] = text, text, text
	}
	for k, v := range fields {
		ev[k] = v
	}
	return ev
}

func newToken() string { return "rpl_" + randHex(12) }

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // never fails
	return hex.EncodeToString(b)
}

// randLetters returns n random lower-case letters.
func randLetters(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // never fails
	for i := range b {
		b[i] = 'a' + b[i]%26
	}
	return string(b)
}
