package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
)

// maxRejectedRetries bounds how many rejections in a row are retried.
const maxRejectedRetries = 5

// maxRetryWait caps the wait a producer may ask for before a retry.
const maxRetryWait = time.Hour

// countdownAt is when, before a long wait ends, the user is reminded.
const countdownAt = 10 * time.Second

// retryConn is the connection to the producer, made again when the
// producer rejects the subscription and says when to try again
// (retry_after_seconds, with a countdown in plain lines), or rejects it as
// capabilities_incompatible over an extension prefix, which a request
// without our extensions avoids. Anything else passes through.
type retryConn struct {
	dial func(ctx context.Context, req []byte) (transport.Conn, error)
	say  func(string) // must not block

	closed    context.Context
	closeOnce func()
	// shown is signalled once the listener has told the user of a
	// rejection, so the countdown's lines come after it.
	shown chan struct{}

	mu       sync.Mutex
	cur      transport.Conn
	req      []byte
	stripped bool // extensions left out after a prefix clash

	rejection []byte // the answer that rejected the subscription on cur
	answered  bool   // cur's subscription was accepted
	tries     int    // rejections in a row
}

// retrying wraps conn, the first connection, made with opts.
func (l *listener) retrying(conn transport.Conn, endpoint string, opts transport.Options) transport.Conn {
	closed, cancel := context.WithCancel(context.Background())
	return &retryConn{
		dial: func(ctx context.Context, req []byte) (transport.Conn, error) {
			opts.SSE.SubscriptionRequest = req
			return transport.Dial(ctx, endpoint, opts)
		},
		say:    l.note,
		closed: closed, closeOnce: cancel, shown: make(chan struct{}, 1),
		cur: conn, req: opts.SSE.SubscriptionRequest,
	}
}

func (c *retryConn) conn() transport.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// Recv implements transport.Conn.
func (c *retryConn) Recv(ctx context.Context) (transport.Frame, error) {
	for {
		f, err := c.conn().Recv(ctx)
		if err == nil {
			c.watch(f)
			return f, nil
		}
		if !errors.Is(err, io.EOF) {
			return f, err
		}
		if !c.rejected() {
			return f, err
		}
		c.waitShown(ctx)
		req, wait, ok := c.plan()
		if !ok {
			return f, err
		}
		if !c.countdown(ctx, wait) {
			return f, transport.ErrClosed
		}
		next, derr := c.dial(ctx, req)
		if derr != nil {
			return f, fmt.Errorf("subscribe again: %w", derr)
		}
		c.mu.Lock()
		if c.closed.Err() != nil {
			c.mu.Unlock()
			next.Close()
			return f, transport.ErrClosed
		}
		c.cur, c.req, c.rejection, c.answered = next, req, nil, false
		c.mu.Unlock()
	}
}

// rejected reports whether the producer rejected the subscription on the
// current connection.
func (c *retryConn) rejected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rejection != nil
}

// rejectionShownWait bounds the wait for the listener to tell the user of
// a rejection.
const rejectionShownWait = 2 * time.Second

// waitShown waits until the listener has said the rejection, so what the
// retry says comes after it.
func (c *retryConn) waitShown(ctx context.Context) {
	t := time.NewTimer(rejectionShownWait)
	defer t.Stop()
	select {
	case <-c.shown:
	case <-t.C:
	case <-ctx.Done():
	case <-c.closed.Done():
	}
}

// rejectionShown tells the connection, when it is a retryConn, that the
// user has been told of a rejection.
func (l *listener) rejectionShown() {
	if c, ok := l.conn.(*retryConn); ok {
		select {
		case c.shown <- struct{}{}:
		default:
		}
	}
}

// watch notes the producer's answer to the subscription request.
func (c *retryConn) watch(f transport.Frame) {
	if !strings.Contains(string(f.Data), "subscription.") {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch protocol.PeekType(f.Data) {
	case protocol.TypeSubscriptionAccepted:
		c.answered, c.tries = true, 0
	case protocol.TypeSubscriptionRejected:
		if !c.answered { // a refused renegotiation ends it for good
			c.rejection = f.Data
		}
	}
}

// plan decides, after the connection ended, whether to subscribe again:
// with what request and after how long.
func (c *retryConn) plan() (req []byte, wait time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rejection == nil || c.closed.Err() != nil || c.tries >= maxRejectedRetries {
		return nil, 0, false
	}
	var m protocol.SubscriptionRejected
	if json.Unmarshal(c.rejection, &m) != nil {
		return nil, 0, false
	}
	c.tries++
	if m.ReasonCode == "capabilities_incompatible" && !c.stripped {
		if fixed, prefix := withoutClash(c.req, m.ReasonMessage); fixed != nil {
			c.stripped = true
			c.say(fmt.Sprintf("The producer's extensions clash with ours over the prefix %q; subscribing again without it "+
				"(answers go unsigned).", protocol.Sanitize(prefix)))
			return fixed, 0, true
		}
	}
	if m.RetryAfterSeconds == nil || *m.RetryAfterSeconds < 0 {
		return nil, 0, false
	}
	return c.req, min(time.Duration(*m.RetryAfterSeconds)*time.Second, maxRetryWait), true
}

// withoutClash returns req without the extension whose prefix the
// rejection's message names (or, when it names none but speaks of a
// prefix, without all of them), and that prefix; nil when there is
// nothing to leave out.
func withoutClash(req []byte, message string) ([]byte, string) {
	var m map[string]json.RawMessage
	var ext, caps map[string]json.RawMessage
	if json.Unmarshal(req, &m) != nil || json.Unmarshal(m["extensions"], &ext) != nil || len(ext) == 0 {
		return nil, ""
	}
	_ = json.Unmarshal(m["capabilities"], &caps) // none is fine
	lower := strings.ToLower(message)
	var names []string
	for p := range ext {
		if strings.Contains(lower, strings.ToLower(p)) {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		if !strings.Contains(lower, "prefix") {
			return nil, ""
		}
		for p := range ext {
			names = append(names, p)
		}
	}
	for _, p := range names {
		delete(ext, p)
		delete(caps, p)
	}
	m["extensions"], _ = json.Marshal(ext)
	if len(ext) == 0 {
		delete(m, "extensions")
	}
	if caps != nil {
		m["capabilities"], _ = json.Marshal(caps)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, ""
	}
	return out, strings.Join(names, ", ")
}

// countdown waits d, telling the user in whole lines (never a redrawn
// counter) when the retry comes and when it starts. It reports false when
// ctx ended or the connection was closed first.
func (c *retryConn) countdown(ctx context.Context, d time.Duration) bool {
	if d > 0 {
		c.say(fmt.Sprintf("Retrying in %s.", seconds(d)))
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
		case <-c.closed.Done():
			t.Stop()
			return false
		}
		d -= step
		if d > 0 {
			c.say(fmt.Sprintf("Retrying in %s.", seconds(d)))
		}
	}
	c.say("Retrying now.")
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
func (c *retryConn) Send(ctx context.Context, msg []byte) error { return c.conn().Send(ctx, msg) }

// Close implements transport.Conn: it ends a wait for a retry as well.
func (c *retryConn) Close() error {
	c.mu.Lock()
	c.closeOnce()
	cur := c.cur
	c.mu.Unlock()
	return cur.Close()
}
