package subscriber

// handshake.go: the subscription request, the producer's answer
// (accepted, rejected, closed) and subscribing again after a rejection
// that allows it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/sigrpl"
	"github.com/aaep-term/aaep-term/transport"
)

// request is the subscription request the client sends.
func (c *Client) request() protocol.SubscriptionRequest { return c.cfg.Request() }

// Request is the subscription request cfg makes: who the subscriber is, the
// terms asked for, the signed-replies offer when there is a Signer, and a
// signed manifest when one is required.
func (cfg Config) Request() protocol.SubscriptionRequest {
	req := session.Request(cfg.Identity, cfg.Terms)
	if cfg.Signer != nil {
		// Without an offer the subscription is unsigned, and replies are
		// told as unsigned.
		if offer, err := cfg.Signer.Offer(); err == nil {
			if b, err := json.Marshal(offer); err == nil {
				req.Extensions = map[string]json.RawMessage{sigrpl.Prefix: b}
				if req.Capabilities.Extra == nil {
					req.Capabilities.Extra = map[string]json.RawMessage{}
				}
				req.Capabilities.Extra[sigrpl.Prefix] = json.RawMessage(`{"required":false}`)
			}
		}
	}
	if cfg.Manifest.Require {
		req.Capabilities.AcceptSignedManifestsOnly = true
	}
	if cfg.Tasks { // tasks.go
		askTasks(&req)
	}
	return req
}

// requestBody marshals a request; its fields are plain values.
func (c *Client) requestBody(req protocol.SubscriptionRequest) []byte {
	b, _ := json.Marshal(req)
	return b
}

// accepted reports the producer's acceptance and adopts its terms.
func (c *Client) accepted(b []byte, now time.Time) {
	var m protocol.SubscriptionAccepted
	if c.neg.pending != nil { // the answer to a renegotiation
		if json.Unmarshal(b, &m) == nil {
			c.adopt(m, now)
		}
		return
	}
	if c.retry != nil {
		c.retry.accepted()
	}
	c.rejectedBy = nil
	if err := json.Unmarshal(b, &m); err != nil || !strings.HasPrefix(m.SubscriptionID, "sub_") {
		c.say(StatusSubscribed, "The producer's acceptance of the subscription could not be read; going on without a subscription ID.")
		return
	}
	c.sign.accepted(m)
	c.eng.SetSubscriptionID(m.SubscriptionID)
	name := m.Producer.AgentName
	if name == "" {
		name = m.Producer.AgentID
	}
	c.sayQuiet(StatusSubscribed, "Subscribed to "+prose.Stop(protocol.Theirs(protocol.Line(name))))
	c.sayQuiet(StatusTerms, c.notesWords(m.NegotiationNotes))
	c.adopt(m, now)
	c.manifestAccepted(m)
}

// rejected explains why the producer refused the subscription.
func (c *Client) rejected(b []byte) {
	var m protocol.SubscriptionRejected
	_ = json.Unmarshal(b, &m) // an unreadable rejection is still a rejection
	if c.refusedRenegotiation(m.ReasonCode, m.ReasonMessage) {
		return
	}
	msg := "The producer refused the subscription: " + c.cfg.Hints.RejectionWords(m.ReasonCode)
	if m.ReasonMessage != "" {
		msg += " " + prose.Stop("It says: "+protocol.Theirs(protocol.Line(m.ReasonMessage)))
	}
	rej := &RejectedError{Code: m.ReasonCode, Message: m.ReasonMessage}
	if m.RetryAfterSeconds != nil {
		rej.RetryAfter = time.Duration(*m.RetryAfterSeconds) * time.Second
		msg += " It asks to be tried again in " + seconds(rej.RetryAfter) + "."
	}
	c.say(StatusRejected, msg)
	c.rejectedBy = rej // until a retry is accepted
	if c.retry != nil {
		c.retry.rejected(m)
	}
}

// rejection is the refusal that stands, or nil.
func (c *Client) rejection() error {
	if c.rejectedBy == nil {
		return nil
	}
	return c.rejectedBy
}

// closedByProducer handles a subscription.close from the producer: it
// ended the subscription (spec §5.8), so nothing more will come. No
// subscription.close is sent back: there is no subscription left.
func (c *Client) closedByProducer(b []byte) {
	var m protocol.SubscriptionClose
	_ = json.Unmarshal(b, &m) // an unreadable close still closes
	msg := "The producer ended the subscription"
	if m.ReasonCode != "" {
		msg += " (reason: " + protocol.Name(m.ReasonCode) + ")"
	}
	msg += "."
	if m.ReasonMessage != "" {
		msg += " " + prose.Stop("It says: "+protocol.Theirs(protocol.Line(m.ReasonMessage)))
	}
	c.neg.subID, c.neg.closed = "", true // the producer knows: it applies the defaults
	c.neg.byProducer = true
	if c.neg.end == "" {
		c.neg.end = msg
	}
}

// RejectionWords says a rejection's reason_code in words. They name no
// program, flag or command: Config.Hints adds those (HintAuthenticate,
// HintAuthorize).
func RejectionWords(code string) string {
	switch code {
	case "version_unsupported":
		return "it does not speak this version of AAEP."
	case "manifest_signature_required":
		return "this subscription requires a signed manifest, and the producer has none."
	case "capabilities_incompatible":
		return "it cannot meet the requested capabilities."
	case "rate_limit":
		return "too many subscriptions; try again later."
	case "authentication_required":
		return "it needs proof of who you are: a token, or a signed-replies key it accepts."
	case "authorization_denied":
		return "you are not allowed to subscribe: your token, or your signed-replies key, is not one it accepts."
	case "transport_unavailable":
		return "this transport is not available."
	}
	return "no reason given that we know (" + protocol.Name(code) + ")."
}

// maxRejectedRetries bounds how many rejections in a row are retried.
const maxRejectedRetries = 5

// maxRetryWait caps the wait a producer may ask for before a retry.
const maxRetryWait = time.Hour

// countdownAt is when, before a long wait ends, the user is reminded.
const countdownAt = 10 * time.Second

// retryConn is the connection to the producer, made again when the
// producer rejects the subscription and says when to try again
// (retry_after_seconds, with a countdown in whole lines), or rejects it as
// capabilities_incompatible over an extension prefix, which a request
// without our extensions avoids. Anything else passes through.
//
// The owner goroutine tells it of each answer (accepted, rejected) before
// it reads the frame after, so Recv's decision to retry follows what the
// user was told; its lines are said from Recv, on the reading goroutine,
// through the inbox, in their place among the frames.
type retryConn struct {
	dial func(ctx context.Context, req []byte) (transport.Conn, error)
	say  func(string)

	closed    context.Context
	closeOnce func()

	mu       sync.Mutex
	cur      transport.Conn
	req      protocol.SubscriptionRequest
	stripped bool // extensions left out after a prefix clash

	rejection *protocol.SubscriptionRejected // the answer that rejected the subscription on cur
	answered  bool                           // cur's subscription was accepted
	tries     int                            // rejections in a row
	// told is signalled when the owner has handled the rejection;
	// expectTold is set while one was handed over and not yet told.
	told       chan struct{}
	expectTold bool
}

// retrying wraps conn, the first connection, made with opts.
func (c *Client) retrying(conn transport.Conn, opts transport.Options) transport.Conn {
	closed, cancel := context.WithCancel(context.Background())
	r := &retryConn{
		dial: func(ctx context.Context, req []byte) (transport.Conn, error) {
			opts.SSE.SubscriptionRequest = req
			return transport.DialEndpoint(ctx, c.ep, opts)
		},
		say:    func(s string) { c.readNote(note{text: s, kind: StatusRetry}) },
		closed: closed, closeOnce: cancel,
		cur: conn, req: c.request(), told: make(chan struct{}, 1),
	}
	c.retry = r
	return r
}

func (r *retryConn) conn() transport.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// accepted notes that the subscription on the current connection was accepted.
func (r *retryConn) accepted() {
	r.mu.Lock()
	r.answered, r.tries = true, 0
	r.mu.Unlock()
}

// rejected notes a rejection, told to the user already.
func (r *retryConn) rejected(m protocol.SubscriptionRejected) {
	r.mu.Lock()
	if !r.answered {
		r.rejection = &m
	}
	r.mu.Unlock()
	select {
	case r.told <- struct{}{}:
	default:
	}
}

// Recv implements transport.Conn.
func (r *retryConn) Recv(ctx context.Context) (transport.Frame, error) {
	var one [1]transport.Frame
	b, err := r.RecvBatch(ctx, one[:0], 1)
	if err != nil {
		return transport.Frame{}, err
	}
	return b[0], nil
}

// RecvBatch implements transport.BatchReceiver: a burst of the current
// connection's frames at once, and the retries of Recv between
// connections.
func (r *retryConn) RecvBatch(ctx context.Context, dst []transport.Frame, limit int) ([]transport.Frame, error) {
	for {
		n := len(dst)
		var err error
		dst, err = transport.RecvBatch(ctx, r.conn(), dst, limit)
		if err == nil {
			for i := n; i < len(dst); i++ {
				if f := &dst[i]; f.Event == transport.EventHandshake && protocol.PeekType(f.Data) == protocol.TypeSubscriptionRejected {
					// Hand it over, then wait until the owner has told it,
					// so the retry's lines come after.
					r.mu.Lock()
					r.rejection = nil
					r.mu.Unlock()
					r.pendingTold()
				}
			}
			return dst, nil
		}
		if !errors.Is(err, io.EOF) || !r.waitTold(ctx) {
			return dst, err
		}
		req, wait, line, ok := r.plan()
		if !ok {
			return dst, err
		}
		if line != "" {
			r.say(line) // not under r.mu: it waits for room in the client's inbox
		}
		if !r.countdown(ctx, wait) {
			return dst, transport.ErrClosed
		}
		body, _ := json.Marshal(req)
		next, derr := r.dial(ctx, body)
		if derr != nil {
			return dst, fmt.Errorf("subscribe again: %w", derr)
		}
		r.mu.Lock()
		if r.closed.Err() != nil {
			r.mu.Unlock()
			next.Close()
			return dst, transport.ErrClosed
		}
		r.cur, r.req, r.rejection, r.answered = next, req, nil, false
		r.mu.Unlock()
	}
}

// EndReason implements transport.Ender: why the current connection ended.
func (r *retryConn) EndReason() transport.EndReason {
	if e, ok := r.conn().(transport.Ender); ok {
		return e.EndReason()
	}
	return transport.EndFailed
}

// pendingTold marks that a rejection was handed to the owner.
func (r *retryConn) pendingTold() {
	r.mu.Lock()
	r.expectTold = true
	r.mu.Unlock()
}

// waitTold waits, when a rejection was handed to the owner, until the
// owner has told it; it reports whether there was one.
func (r *retryConn) waitTold(ctx context.Context) bool {
	r.mu.Lock()
	expect := r.expectTold
	r.expectTold = false
	r.mu.Unlock()
	if !expect {
		return false
	}
	select {
	case <-r.told:
		return true
	case <-ctx.Done():
	case <-r.closed.Done():
	}
	return false
}

// plan decides, after the connection ended, whether to subscribe again:
// with what request and after how long; line, when not empty, is what to
// tell the user about it.
func (r *retryConn) plan() (req protocol.SubscriptionRequest, wait time.Duration, line string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rejection == nil || r.closed.Err() != nil || r.tries >= maxRejectedRetries {
		return req, 0, "", false
	}
	m := r.rejection
	r.tries++
	if m.ReasonCode == "capabilities_incompatible" && !r.stripped {
		if fixed, prefix, ok := withoutClash(r.req, m.ReasonMessage); ok {
			r.stripped = true
			return fixed, 0, fmt.Sprintf("The producer's extensions clash with ours over the prefix %q; subscribing again without it "+
				"(answers go unsigned).", protocol.Name(prefix)), true
		}
	}
	if m.RetryAfterSeconds == nil || *m.RetryAfterSeconds < 0 {
		return req, 0, "", false
	}
	return r.req, min(time.Duration(*m.RetryAfterSeconds)*time.Second, maxRetryWait), "", true
}

// withoutClash returns req without the extension whose prefix the
// rejection's message names (or, when it names none but speaks of a
// prefix, without all of them), and that prefix; ok is false when there is
// nothing to leave out.
func withoutClash(req protocol.SubscriptionRequest, message string) (protocol.SubscriptionRequest, string, bool) {
	if len(req.Extensions) == 0 {
		return req, "", false
	}
	lower := strings.ToLower(message)
	var names []string
	for p := range req.Extensions {
		if strings.Contains(lower, strings.ToLower(p)) {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		if !strings.Contains(lower, "prefix") {
			return req, "", false
		}
		for p := range req.Extensions {
			names = append(names, p)
		}
	}
	ext := map[string]json.RawMessage{}
	for k, v := range req.Extensions {
		ext[k] = v
	}
	extra := map[string]json.RawMessage{}
	for k, v := range req.Capabilities.Extra {
		extra[k] = v
	}
	for _, p := range names {
		delete(ext, p)
		delete(extra, p)
	}
	req.Extensions, req.Capabilities.Extra = ext, extra
	if len(ext) == 0 {
		req.Extensions = nil
	}
	if len(extra) == 0 {
		req.Capabilities.Extra = nil
	}
	return req, strings.Join(names, ", "), true
}

// countdown waits d, telling the user in whole lines (never a redrawn
// counter) when the retry comes and when it starts. It reports false when
// ctx ended or the connection was closed first.
func (r *retryConn) countdown(ctx context.Context, d time.Duration) bool {
	if d > 0 {
		r.say(fmt.Sprintf("Retrying in %s.", seconds(d)))
	}
	for d > 0 {
		step := d
		if d > countdownAt {
			step = d - countdownAt
		}
		t := time.NewTimer(step)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		case <-r.closed.Done():
			t.Stop()
			return false
		}
		d -= step
		if d > 0 {
			r.say(fmt.Sprintf("Retrying in %s.", seconds(d)))
		}
	}
	r.say("Retrying now.")
	return true
}

func seconds(d time.Duration) string {
	n := int((d + time.Second - 1) / time.Second)
	if n == 1 {
		return "1 second"
	}
	return fmt.Sprintf("%d seconds", n)
}

// Send implements transport.Conn.
func (r *retryConn) Send(ctx context.Context, msg []byte) error { return r.conn().Send(ctx, msg) }

// Close implements transport.Conn: it ends a wait for a retry as well.
func (r *retryConn) Close() error {
	r.mu.Lock()
	r.closeOnce()
	cur := r.cur
	r.mu.Unlock()
	return cur.Close()
}
