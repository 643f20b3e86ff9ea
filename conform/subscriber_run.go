package conform

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
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
	RejectLine      string // default "reject {n}"
	AnswerLine      string // default "answer {n} {text}"
	RenegotiateLine string // asks for new terms; default "set rate 2"
	// Window is the timeout of the first confirmation, which nobody
	// answers: the suite watches for a reply from when it is flushed to
	// the subscriber until the timeout has passed and a second more;
	// default 5 s (3 s with Fast). It is rounded up to whole seconds,
	// since timeout_seconds is a whole number.
	Window time.Duration
	// Patience is how long a reply or message may take once the user has
	// acted, and an announcement once its event was sent; default 10 s.
	// The subscriber has three times as long to connect.
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

	// listener and run, when set (by this package's tests), serve the
	// suite on listener instead of Addr and run the subscriber in this
	// process instead of Exec: run is given the endpoint, the user's typing
	// and where to write, returns when the subscriber ends, and its
	// context ends as SIGINT or a kill would end a process. Both may then
	// run in a synctest bubble, on its clock.
	listener net.Listener
	run      func(ctx context.Context, endpoint string, stdin io.Reader, stdout io.Writer) error
}

// The bindings a subscriber can be tested over, by transport's names.
const (
	BindingSSE       = string(transport.BindingSSE)
	BindingWebSocket = string(transport.BindingWebSocket)
)

// The ways of stopping a subscriber run by Exec.
const (
	ShutdownStdin     = "stdin"
	ShutdownInterrupt = "interrupt"
)

// The subscriber test IDs.
const (
	idSubConnect     = "S1-connect"
	idSubAnnounces   = "S1-announces-lifecycle"
	idSubTerminals   = "S1-terminals-distinct"
	idSubCritical    = "S1-critical-announced"
	idSubUnknown     = "S1-unknown-tolerated"
	idSubDeclares    = "S2-declares-replies"
	idSubNoAuto      = "S2-no-reply-without-user"
	idSubAsTyped     = "S2-reply-as-typed"
	idSubTokenEcho   = "S2-token-echo"
	idSubReplyKind   = "S2-reply-kind"
	idSubHandshake   = "S3-handshake-capabilities"
	idSubLowerTerms  = "S3-lower-terms-accepted"
	idSubRenegotiate = "S3-renegotiate"
	idSubClose       = "S3-close-on-shutdown"
	idSubDedupe      = "S3-duplicates-dropped"
	idSubOrder       = "S3-order-restored"
	idSubPressure    = "S3-critical-under-load"
)

// SubscriberTests is the subscriber catalogue, in the order the tests run.
func SubscriberTests() []Test {
	t := func(id string, l Level, sec, req string) Test {
		return Test{ID: id, Role: RoleSubscriber, Level: l, Section: sec, Requirement: req}
	}
	return []Test{
		t(idSubConnect, 1, "9.3.2", "The subscriber opens the event stream: after a subscription request when it makes one, or without one (Level 1 needs no handshake)."),
		t(idSubAnnounces, 1, "9.3.2", "It announces agent.session.started, agent.tool.invoked and the terminal event of a session: their references appear in what it writes."),
		t(idSubTerminals, 1, "9.3.2", "Sessions that complete, fail and are cancelled, with the same summary, are announced in words that tell them apart."),
		t(idSubCritical, 1, "9.3.2", "A critical event (agent.session.errored) is announced, even when the subscriber's own event filters exclude its type."),
		t(idSubUnknown, 1, "9.3.2", "An event of an unknown type is announced generically and one carrying unknown extensions as usual; the subscriber keeps its stream and announces the events after them."),
		t(idSubDeclares, 2, "9.4.2", "The subscription request declares supports_confirmation_reply true, and supports_clarification_reply true when it answers clarifications."),
		t(idSubNoAuto, 2, "9.4.2", "No reply is sent for a prompt before the user acts: a confirmation nobody answers is watched until its timeout has passed."),
		t(idSubAsTyped, 2, "9.4.2", "Each reply says what the user typed: reject, accept, the choice that is not the default, and a line of free text."),
		t(idSubTokenEcho, 2, "9.4.2", "Each reply echoes the prompt's reply_token exactly, with the subscription it belongs to."),
		t(idSubReplyKind, 2, "9.4.2", "A confirmation is answered with a confirmation.reply whose decision is allowed, a clarification with a clarification.reply whose response is one of the choices offered."),
		t(idSubHandshake, 3, "9.5.2", "The subscription request carries a capabilities object and names the subscriber."),
		t(idSubLowerTerms, 3, "9.5.2", "Honored terms lower than requested are accepted: the stream is opened and no renegotiation is sent unasked."),
		t(idSubRenegotiate, 3, "9.5.2", "When the user asks to change the terms, the subscriber sends subscription.renegotiate with the change."),
		t(idSubClose, 3, "9.5.2", "On shutdown the subscriber sends subscription.close naming its subscription."),
		t(idSubDedupe, 3, "9.5.2", "An event delivered twice (the same event_id) is announced once."),
		t(idSubOrder, 3, "9.5.2", "Two events delivered out of order are announced in the order of their sequence_number."),
		t(idSubPressure, 3, "9.5.2", "A critical event sent right after a burst of background events (as many as the honored rate allows in a second) is announced within the window of reaching the subscriber, not queued behind them."),
	}
}

// TestSubscriber runs the subscriber tests up to o.Level. An error means
// the suite could not run at all (exit 2).
//
// The suite is a scripted producer on a loopback port serving the HTTP
// binding in the spec's layout (POST /aaep/v1/subscriptions, the stream
// at /aaep/v1/events, messages to /aaep/v1/replies) and WebSocket
// (/aaep/v1/ws, subprotocol aaep.v1); o.Binding picks the one the
// subscriber is given, and the deployed layout's GET /events. The script
// is played in this order:
//
//  1. the subscription request is accepted with a lower rate than asked
//     (half, or 20 events a second when no limit was asked for), its
//     event filters as asked; or, at Level 1, a stream opened without one
//     gets the default terms;
//  2. a session numbered from 0: agent.session.started, state changes and
//     a tool call;
//  3. (Level 2, to a subscriber that declared it can reply) a confirmation
//     nobody answers, whose timeout_seconds is o.Window, watched until it
//     has passed and a second more; then, each once it is announced, a
//     confirmation the user rejects (o.RejectLine), one the user accepts
//     (o.AcceptLine) and two questions the user answers (o.AnswerLine):
//     the choice that is not the default, and a line of text;
//  4. an event of an unknown type, a tool call with an unknown extension,
//     a tool call delivered twice, two delivered the other way round;
//  5. (Level 3) o.RenegotiateLine is typed and a subscription.renegotiate
//     awaited;
//  6. the session completes; a second starts, sends a burst of background
//     events and fails (critical, sent whatever the filters); a third is
//     cancelled; then shutdown as o.Shutdown says, and a
//     subscription.close awaited.
//
// Events whose announcement is tested carry a word of their own in their
// summaries, looked for in what the subscriber run by o.Exec writes.
// Every test is judged from what was observed once the session is over,
// so o.Only filters the results, not the session. Without o.Exec nobody
// types and nothing announced is read: those tests are skipped with the
// reason.
func TestSubscriber(ctx context.Context, o SubscriberOptions) (*Report, error) {
	if o.Shutdown != "" && o.Shutdown != ShutdownStdin && o.Shutdown != ShutdownInterrupt {
		return nil, fmt.Errorf("conform: shutdown %q: say %q or %q", o.Shutdown, ShutdownStdin, ShutdownInterrupt)
	}
	if o.Level < 1 || o.Level > 3 {
		return nil, fmt.Errorf("conform: level %d: the levels are 1, 2 and 3", o.Level)
	}
	o.defaults()
	st, err := newStage(o.Addr, o.listener)
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
	switch {
	case o.run != nil:
		user = runInProcess(ctx, o.run, endpoint, st, o.Output, st)
		defer user.stop()
	case o.Exec != "":
		user, err = startSubscriber(ctx, strings.ReplaceAll(o.Exec, "{endpoint}", endpoint), st, o.Output, st)
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
	if o.RejectLine == "" {
		o.RejectLine = "reject {n}"
	}
	if o.AnswerLine == "" {
		o.AnswerLine = "answer {n} {text}"
	}
	if o.RenegotiateLine == "" {
		o.RenegotiateLine = "set rate 2"
	}
	if o.Window <= 0 {
		o.Window = 5 * time.Second
		if o.Fast {
			o.Window = 3 * time.Second
		}
	}
	if o.Patience <= 0 {
		o.Patience = 10 * time.Second
	}
}
