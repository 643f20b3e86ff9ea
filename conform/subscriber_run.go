package conform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// SubscriberOptions say how to test a subscriber.
type SubscriberOptions struct {
	Level Level
	Fast  bool
	// Exec, if not empty, is the subscriber's command line, run by the
	// suite; {endpoint} in it is replaced by where the suite serves. It is
	// split at spaces, without a shell. The suite acts as the user by
	// typing lines on its standard input.
	// Without it the suite serves on Addr and waits for a subscriber.
	Exec string
	Addr string // host:port to serve on; "127.0.0.1:0" when empty
	// Binding is where the subscriber is sent: BindingSSE (the default),
	// the HTTP binding in the spec's layout, or BindingWebSocket. The
	// suite serves both on Addr either way; this picks the {endpoint}.
	Binding string
	// Only, if not empty, keeps just these test IDs in the report (verify
	// --recheck); the scripted session is played whole either way.
	Only []string
	// Seed is accepted for symmetry with the producer tests; the
	// subscriber tests are one scripted session whose order is fixed.
	Seed uint64
	// Ready, if not nil, is told where the suite serves, once it does.
	Ready func(endpoint string)
	// Progress, if not nil, is told each result once the scripted session
	// is over, in the order of the report.
	Progress func(Result)

	// The lines typed to act as the user, for Exec. In each, {n} is the
	// prompt's number (the suite's prompts count 1, 2, … in the order
	// sent), {token} its reply_token and {text} the answer chosen.
	// Empty means what aaep-listen understands.
	AcceptLine      string // default "accept {n}\nyes" (aaep-listen asks yes before it accepts what cannot be undone)
	AnswerLine      string // default "answer {n} {text}"
	RenegotiateLine string // asks for new terms; default "set rate 2"
	// Window is how long the suite waits, after a prompt is flushed to
	// the subscriber, for a reply nobody asked for; default 1 s.
	Window time.Duration
	// Patience is how long a reply or message may take once the user has
	// acted, and how long the subscriber has to connect; default 10 s
	// (30 s to connect without Exec).
	Patience time.Duration
	// Shutdown is how the subscriber run by Exec is told to stop:
	// ShutdownStdin closes its standard input, ShutdownInterrupt sends
	// SIGINT; empty means the first, then the second if no
	// subscription.close came within half of Patience.
	Shutdown string
	// Output, if not nil, is where the subscriber run by Exec writes its
	// standard output and error; nil discards them. They are the
	// subscriber's words, not the suite's: a command should show them
	// only when asked, and sanitized.
	Output io.Writer
}

// The bindings a subscriber can be tested over.
const (
	BindingSSE       = "sse"
	BindingWebSocket = "websocket"
)

// The ways of stopping a subscriber run by Exec.
const (
	ShutdownStdin     = "stdin"
	ShutdownInterrupt = "interrupt"
)

// The subscriber test IDs.
const (
	idSubConnect     = "S1-connect"
	idSubUnknown     = "S1-unknown-tolerated"
	idSubDeclares    = "S2-declares-replies"
	idSubNoAuto      = "S2-no-reply-without-user"
	idSubTokenEcho   = "S2-token-echo"
	idSubReplyKind   = "S2-reply-kind"
	idSubHandshake   = "S3-handshake-capabilities"
	idSubLowerTerms  = "S3-lower-terms-accepted"
	idSubRenegotiate = "S3-renegotiate"
	idSubClose       = "S3-close-on-shutdown"
)

// SubscriberTests is the subscriber catalogue, in the order the tests run.
func SubscriberTests() []Test {
	t := func(id string, l Level, sec, req string) Test {
		return Test{ID: id, Role: RoleSubscriber, Level: l, Section: sec, Requirement: req}
	}
	return []Test{
		t(idSubConnect, 1, "9.3.2", "The subscriber subscribes over the HTTP binding and opens the event stream the producer names."),
		t(idSubUnknown, 1, "9.3.2", "An event of an unknown type and an event carrying unknown extensions do not break the stream: the subscriber stays connected and still replies afterwards."),
		t(idSubDeclares, 2, "9.4.2", "The subscription request declares supports_confirmation_reply true, and supports_clarification_reply true when it answers clarifications."),
		t(idSubNoAuto, 2, "9.4.2", "No reply is sent for a prompt before the user acts, within a measured window, and each reply of the right kind says what the user answered."),
		t(idSubTokenEcho, 2, "9.4.2", "Each reply echoes the prompt's reply_token exactly, with the subscription it belongs to."),
		t(idSubReplyKind, 2, "9.4.2", "A confirmation is answered with a confirmation.reply whose decision is allowed, a clarification with a clarification.reply whose response is one of the choices offered."),
		t(idSubHandshake, 3, "9.5.2", "The subscription request carries a capabilities object and names the subscriber."),
		t(idSubLowerTerms, 3, "9.5.2", "Honored terms lower than requested are accepted: the stream is opened and no renegotiation is sent unasked."),
		t(idSubRenegotiate, 3, "9.5.2", "When the user asks to change the terms, the subscriber sends subscription.renegotiate with the change."),
		t(idSubClose, 3, "9.5.2", "On shutdown the subscriber sends subscription.close naming its subscription."),
	}
}

// TestSubscriber runs the subscriber tests up to o.Level. An error means
// the suite could not run at all (exit 2).
//
// The suite is a scripted producer on a loopback port serving the HTTP
// binding in the spec's layout (POST /aaep/v1/subscriptions, the stream
// at /aaep/v1/events, messages to /aaep/v1/replies) and WebSocket
// (/aaep/v1/ws, subprotocol aaep.v1); o.Binding picks the one the
// subscriber is given. One session is played, in this order:
//
//  1. the subscription request is accepted with a lower rate than asked
//     (half, or 20 events a second when no limit was asked for);
//  2. agent.session.started and agent.state.changed;
//  3. a confirmation (Level 2, when the subscriber declared it can reply):
//     no reply may come for o.Window after it was flushed; then the suite
//     types o.AcceptLine and waits for the reply;
//  4. an event of an unknown type, and an agent.progress.updated with an
//     unknown extension;
//  5. a clarification with two choices, the same way, with o.AnswerLine;
//  6. (Level 3) o.RenegotiateLine is typed and a subscription.renegotiate
//     awaited;
//  7. agent.session.completed, then shutdown as o.Shutdown says, and a
//     subscription.close awaited.
//
// Every test is judged from what was observed once the session is over,
// so o.Only filters the results, not the session. Without o.Exec nobody
// types: the tests that need a user are skipped with the reason.
func TestSubscriber(ctx context.Context, o SubscriberOptions) (*Report, error) {
	if o.Shutdown != "" && o.Shutdown != ShutdownStdin && o.Shutdown != ShutdownInterrupt {
		return nil, fmt.Errorf("conform: shutdown %q: say %q or %q", o.Shutdown, ShutdownStdin, ShutdownInterrupt)
	}
	if o.Level < 1 || o.Level > 3 {
		return nil, fmt.Errorf("conform: level %d: the levels are 1, 2 and 3", o.Level)
	}
	o.defaults()
	st, err := newStage(o.Addr)
	if err != nil {
		return nil, err
	}
	defer st.close()
	endpoint, binding := st.endpoint(), "HTTP, spec layout (Server-Sent Events)"
	switch o.Binding {
	case "", BindingSSE:
	case BindingWebSocket:
		endpoint, binding = "ws://"+st.ln.Addr().String()+protocol.PathWebSocket, "WebSocket (aaep.v1)"
	default:
		return nil, fmt.Errorf("conform: binding %q: the subscriber tests serve %q and %q", o.Binding, BindingSSE, BindingWebSocket)
	}
	if o.Ready != nil {
		o.Ready(endpoint)
	}
	rep := &Report{
		Suite:   Suite{Name: "aaep-conform", AAEPVersion: protocol.Version},
		Target:  Target{Endpoint: endpoint, Binding: binding, Command: o.Exec},
		Role:    RoleSubscriber,
		Level:   o.Level,
		Fast:    o.Fast,
		Started: time.Now(),
	}
	var user *typist
	if o.Exec != "" {
		user, err = startSubscriber(ctx, strings.ReplaceAll(o.Exec, "{endpoint}", endpoint), st, o.Output)
		if err != nil {
			return nil, err
		}
		defer user.stop()
	}
	f := play(ctx, st, o, user)
	f.transcript = st.transcript()
	st.mu.Lock()
	f.dropped = st.dropped
	st.mu.Unlock()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("conform: the subscriber tests were stopped: %w", ctx.Err())
	}
	if req := f.request.m; req != nil {
		id, _ := str(req, "subscriber_id")
		name, _ := str(req, "subscriber_name")
		rep.Target.Subscriber = protocol.Line(id)
		if name != "" && name != id {
			rep.Target.Subscriber = protocol.Line(name + " (" + id + ")")
		}
	}
	for _, t := range SubscriberTests() {
		if t.Level > o.Level || (len(o.Only) > 0 && !slices.Contains(o.Only, t.ID)) {
			continue
		}
		r := judge(t, f, o, user != nil)
		if o.Progress != nil {
			o.Progress(r)
		}
		rep.Results = append(rep.Results, r)
	}
	rep.Finished = time.Now()
	return rep, nil
}

func (o *SubscriberOptions) defaults() {
	if o.AcceptLine == "" {
		o.AcceptLine = "accept {n}\nyes"
	}
	if o.AnswerLine == "" {
		o.AnswerLine = "answer {n} {text}"
	}
	if o.RenegotiateLine == "" {
		o.RenegotiateLine = "set rate 2"
	}
	if o.Window <= 0 {
		o.Window = time.Second
	}
	if o.Patience <= 0 {
		o.Patience = 10 * time.Second
	}
}

// prompt is one prompt the suite sent and what came of it.
type prompt struct {
	n       int
	typ     string // the event type
	token   string
	choices []string // clarification: the values offered
	answer  string   // what the user answers: "accept", or a choice's value
	frame   json.RawMessage
	sent    time.Duration
	acted   time.Duration // when the user acted; 0: never
	early   []heard       // replies heard in the window before the user acted
	reply   heard
	replied bool
}

// facts are what the scripted session observed; judge turns them into
// results.
type facts struct {
	request        heard
	connected      bool
	prompts        []*prompt
	streamsBefore  int // streams opened before the unknown events
	streamsAfter   int
	unknownAt      time.Duration // when the unknown events were sent
	afterUnknown   bool          // a reply came after the unknown events
	renegAsked     bool
	renegAskedAt   time.Duration
	reneg          heard
	renegHeard     bool
	closeHow       string // "standard input closed", "SIGINT", "" when not tried
	closeMsg       heard
	closeHeard     bool
	unaskedRenegos int
	transcript     []Evidence // the whole session
	dropped        int        // messages counted beyond maxHeard, not kept
}

// play runs the scripted session: handshake, stream, a confirmation, the
// unknown events, a clarification, a change of terms, shutdown.
func play(ctx context.Context, st *stage, o SubscriberOptions, user *typist) *facts {
	f := &facts{}
	connect := o.Patience
	if user == nil {
		connect = 3 * o.Patience
	}
	var ok bool
	f.request, ok = st.await(ctx, 0, connect, isType(protocol.TypeSubscriptionRequest))
	if !ok {
		st.note("note", nil, fmt.Sprintf("no subscription.request within %v", connect))
		return f
	}
	select {
	case <-st.streamUp:
		f.connected = true
	case <-time.After(o.Patience):
		st.note("note", nil, fmt.Sprintf("no event stream opened within %v of the subscription", o.Patience))
		return f
	case <-ctx.Done():
		return f
	}
	ev := newScriptEvents()
	st.send(ev.next(protocol.TypeSessionStarted, map[string]any{
		"summary_normal": "The conformance suite starts a scripted session.", "request_text": "Test this subscriber."}))
	st.send(ev.next(protocol.TypeStateChanged, map[string]any{"from_state": "idle", "to_state": "thinking",
		"summary_normal": "Thinking about what to ask."}))

	// A prompt goes only to a subscriber that said it can answer it
	// (§5.3.1.4), at Level 2 and above.
	caps := capabilities(f.request)
	if o.Level >= 2 && boolCap(caps, "supports_confirmation_reply") {
		p := &prompt{n: 1, typ: protocol.TypeAwaitingConfirmation, token: newToken(), answer: protocol.DecisionAccept}
		f.prompts = append(f.prompts, p)
		ask(ctx, st, o, user, f.prompts[:len(f.prompts)-1], p, ev.next(p.typ, map[string]any{
			"reply_token": p.token, "action": "Delete the file report-draft.txt.",
			"consequence": "The file is gone for good.", "timeout_seconds": 120,
			"default_decision": "reject", "risk_level": "high", "irreversible": true,
			"allowed_replies": []string{"accept", "reject"},
			"summary_normal":  "Please confirm: delete the file report-draft.txt? This cannot be undone."}))
	}

	f.streamsBefore = streams(st)
	st.send(ev.next("aaep:agent.conformance.probe", map[string]any{
		"summary_normal": "An event of a type this subscriber cannot know.", "probe": map[string]any{"depth": []any{1, "two", nil}}}))
	st.send(ev.next(protocol.TypeProgressUpdated, map[string]any{
		"summary_normal": "Half way, with an extension the subscriber does not know.", "percent": 50,
		"extensions": map[string]any{"https://aaep-conform.example/ext/v1": map[string]any{"probe": true, "unknown": map[string]any{"x": []int{1, 2}}}}}))
	f.unknownAt = st.since()
	unknownAt := f.unknownAt

	if o.Level >= 2 && boolCap(caps, "supports_clarification_reply") {
		p := &prompt{n: len(f.prompts) + 1, typ: protocol.TypeAwaitingClarify, token: newToken(), choices: []string{"blue", "green"}, answer: "green"}
		f.prompts = append(f.prompts, p)
		ask(ctx, st, o, user, f.prompts[:len(f.prompts)-1], p, ev.next(p.typ, map[string]any{
			"reply_token": p.token, "question": "Which colour should the chart use?",
			"timeout_seconds": 120, "accepted_response_kinds": []string{"multiple_choice"},
			"choices":          []map[string]string{{"value": "blue", "label": "blue"}, {"value": "green", "label": "green"}},
			"default_response": "blue", "summary_normal": "Which colour should the chart use: blue or green?"}))
	}
	if n := len(f.prompts); n > 0 && f.prompts[n-1].sent > unknownAt {
		p := f.prompts[n-1]
		f.afterUnknown = p.replied && p.reply.at > unknownAt
	}

	if user != nil && o.Level >= 3 {
		mark := st.mark()
		f.renegAsked, f.renegAskedAt = true, st.since()
		user.say(o.RenegotiateLine)
		f.reneg, f.renegHeard = st.await(ctx, mark, o.Patience, isType(protocol.TypeSubscriptionRenegotiate))
	}
	st.send(ev.next(protocol.TypeSessionCompleted, map[string]any{"summary_normal": "The scripted session is done.", "outcome": "success"}))
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
	return f
}

// ask sends prompt p, waits the window for a reply nobody asked for, then
// acts as the user (with Exec) and waits for the reply.
func ask(ctx context.Context, st *stage, o SubscriberOptions, user *typist, earlier []*prompt, p *prompt, ev map[string]any) {
	mark := st.mark()
	p.frame, _ = json.Marshal(ev)
	i := st.send(ev)
	at, ok := st.delivered(ctx, i, o.Patience)
	if !ok {
		st.note("note", nil, fmt.Sprintf("prompt %d was not written to any stream within %v", p.n, o.Patience))
		at = st.since()
	}
	p.sent = at // the window is measured from when the prompt was flushed
	forThis := func(h heard) bool {
		tok, _ := str(h.m, "reply_token")
		return isReply(h) && (tok == p.token || strings.Contains(string(h.raw), p.token))
	}
	anyReply := func(h heard) bool { // but a late reply to an earlier prompt
		return isReply(h) && !slices.ContainsFunc(earlier, func(e *prompt) bool { return strings.Contains(string(h.raw), e.token) })
	}
	if h, ok := st.await(ctx, mark, o.Window, anyReply); ok {
		p.early = append(p.early, h)
	}
	if user == nil {
		return
	}
	line := o.AcceptLine
	if p.typ == protocol.TypeAwaitingClarify {
		line = o.AnswerLine
	}
	line = strings.NewReplacer("{n}", fmt.Sprint(p.n), "{token}", p.token, "{text}", p.answer).Replace(line)
	p.acted = st.since()
	user.say(line)
	p.reply, p.replied = st.await(ctx, mark, o.Patience, forThis)
	if !p.replied { // a reply with a wrong token is still this prompt's reply
		p.reply, p.replied = st.await(ctx, mark, 0, anyReply)
	}
}

func streams(st *stage) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.streams
}

// scriptEvents makes the envelopes of the scripted session.
type scriptEvents struct {
	session string
	seq     int
}

func newScriptEvents() *scriptEvents { return &scriptEvents{session: "sess_" + randHex(8)} }

func (e *scriptEvents) next(typ string, fields map[string]any) map[string]any {
	e.seq++
	ev := map[string]any{
		"@context": protocol.ContextURL, "aaep_version": protocol.Version, "type": typ,
		"event_id": fmt.Sprintf("evt_%s%04d", e.session[5:], e.seq), "session_id": e.session,
		"sequence_number": e.seq, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"producer": stageAgent, "urgency": "normal",
		"localization_hints": map[string]string{"primary_language": "en-US", "text_direction": "ltr"},
	}
	if typ == protocol.TypeAwaitingConfirmation || typ == protocol.TypeAwaitingClarify {
		ev["urgency"] = "critical"
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
