// sse_client.go: the HTTP binding: an SSE event stream plus POSTs back, in
// the appendix B layout or the legacy one, with reconnects.

package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/creds"
	"github.com/aaep-term/aaep-term/protocol"
)

// Layout is the set of HTTP paths a producer serves.
type Layout int

const (
	// LayoutAuto tries the appendix B layout and falls back to the legacy
	// one when the producer has no subscriptions endpoint.
	LayoutAuto Layout = iota
	// LayoutLegacy is what deployed producers serve: GET <base>/events, no
	// handshake, replies POSTed to <base>/messages.
	LayoutLegacy
	// LayoutSpec is appendix B: POST a subscription request to
	// <base>/aaep/v1/subscriptions, GET the stream named by its Location,
	// POST replies to <base>/aaep/v1/replies.
	LayoutSpec
)

func (l Layout) String() string {
	switch l {
	case LayoutAuto:
		return "auto"
	case LayoutLegacy:
		return "legacy"
	case LayoutSpec:
		return "spec"
	}
	return "unknown"
}

// EventHandshake is the Frame.Event of the producer's answer to a
// subscription request (accepted or rejected), which an SSE Conn in the
// appendix B layout delivers before any event of the stream.
const EventHandshake = "aaep.handshake"

// Defaults of SSEOptions.
const (
	DefaultInitialBackoff  = 250 * time.Millisecond
	DefaultMaxBackoff      = 10 * time.Second
	DefaultMaxEmptyStreams = 5
)

// maxErrorBody is how much of an HTTP error body is read for its message.
const maxErrorBody = 64 << 10

// minRetry keeps a "retry: 0" from turning reconnects into a busy loop.
const minRetry = 10 * time.Millisecond

// SSEOptions configures DialSSE. The zero value is usable: auto layout, no
// token, default paths, limits and backoff.
type SSEOptions struct {
	// Layout picks the HTTP paths; the zero value is LayoutAuto. Auto and
	// spec need SubscriptionRequest; without one, auto means legacy.
	Layout Layout

	// Token, if not empty, is sent as "Authorization: Bearer <Token>" on
	// every request to the base URL's origin (scheme, host and port), and
	// to no other: not to a subscription Location, nor across a redirect,
	// on another origin.
	Token string
	// Header holds extra headers sent with every request to the base URL's
	// origin, like Token. Headers this package sets (Accept, Content-Type,
	// Last-Event-ID, and Authorization when Token is set) take precedence.
	Header http.Header

	// Paths, joined to the base URL's path. Empty means protocol's path:
	// PathLegacyEvents, PathLegacyReplies, PathSubscriptions, PathEvents
	// and PathReplies, in this order. SpecEventsPath is used only when the
	// producer accepts a subscription without a Location header.
	EventsPath        string // legacy stream
	MessagesPath      string // legacy back channel
	SubscriptionsPath string // appendix B handshake
	SpecEventsPath    string // appendix B stream
	RepliesPath       string // appendix B back channel

	// SubscriptionRequest is the body POSTed to the subscriptions path (a
	// subscription.request message), sent unchanged.
	SubscriptionRequest []byte

	// HeaderTimeout bounds the wait for the producer when connecting: for
	// the answer to a subscription request (its response headers), and for
	// the event stream to be taken (connection made, request written; its
	// headers are then awaited without a bound, since some producers send
	// them only with the first event). A producer that has not answered by
	// then is taken as not answering: the first connection fails with a
	// *HeaderTimeoutError, a reconnect says so through OnDiagnostic and
	// backs off. It does not bound the stream itself, nor Send. Zero means
	// DefaultHeaderTimeout; negative, no limit.
	HeaderTimeout time.Duration

	// SendHeader, if not nil, gives extra headers for one message Send
	// posts, made from its exact bytes (a signature, for example).
	SendHeader func(msg []byte) (http.Header, error)

	// HTTPClient makes the requests. If nil, the connection uses a client of
	// its own (the default transport's settings, no timeout) and releases
	// its idle connections on Close. A client given here must not have a
	// Timeout, or it would cut the stream.
	HTTPClient *http.Client

	// MaxFrameBytes bounds one message; longer ones are skipped and reported
	// to OnDiagnostic. Zero means DefaultMaxFrameBytes.
	MaxFrameBytes int

	// Reconnect delays grow from InitialBackoff (or the stream's "retry:"
	// value) doubling up to MaxBackoff, each drawn at random from the upper
	// half of its range. Zero means DefaultInitialBackoff / DefaultMaxBackoff.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// MaxReconnects is how many reconnect attempts in a row may fail (an
	// attempt counts as failed unless its stream delivered a frame) before
	// Recv gives up with the last error. Zero means never give up; a
	// negative value means never reconnect.
	MaxReconnects int
	// MaxEmptyStreams is how many streams in a row may be ended by the
	// producer without a single message before the connection gives up
	// (Recv returns io.EOF): a producer that answers 200 and closes is
	// not reconnected to for ever. Zero means DefaultMaxEmptyStreams; a
	// negative value means never give up for that reason.
	MaxEmptyStreams int

	// OnStatus, if not nil, is told every status change, with a reason in
	// plain words when there is one. It is called from Dial and then from
	// the connection's goroutine, in order, and must not block.
	OnStatus StatusFunc
	// OnDiagnostic, if not nil, is told in plain words about problems that
	// do not end the connection (a message skipped as too large, a malformed
	// retry value). Same calling rules as OnStatus.
	OnDiagnostic func(msg string)
	// InBand, when set, makes Recv return the status changes and problems
	// as frames with a Note, in their place among the messages (see Note);
	// OnStatus and OnDiagnostic are then not called. Dial passes it on to
	// the other bindings, as it does the callbacks.
	InBand bool
}

func (o SSEOptions) withDefaults() SSEOptions {
	def := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	def(&o.EventsPath, protocol.PathLegacyEvents)
	def(&o.MessagesPath, protocol.PathLegacyReplies)
	def(&o.SubscriptionsPath, protocol.PathSubscriptions)
	def(&o.SpecEventsPath, protocol.PathEvents)
	def(&o.RepliesPath, protocol.PathReplies)
	if o.MaxFrameBytes <= 0 {
		o.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = DefaultInitialBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	o.MaxBackoff = max(o.MaxBackoff, o.InitialBackoff)
	if o.MaxEmptyStreams == 0 {
		o.MaxEmptyStreams = DefaultMaxEmptyStreams
	}
	return o
}

// sseConn is a Conn over HTTP and SSE.
type sseConn struct {
	o      SSEOptions      // with defaults
	client *http.Client    // strips credentials from redirects to other origins
	ownTr  *http.Transport // the client's transport when we made it; else nil
	base   *url.URL
	creds  *creds.Set // Token and Header, for base's origin only
	*pump

	// Settled by DialSSE, read-only afterwards.
	layout    Layout
	subURL    *url.URL // appendix B subscriptions endpoint
	streamURL *url.URL
	sendURL   *url.URL

	// Owned by the reader goroutine (DialSSE before it starts).
	lastID string
	retry  time.Duration // the stream's retry value; 0 = none
	// connectedUnsaid: a reconnect after an empty stream succeeded, to be
	// reported when the stream brings its first message.
	connectedUnsaid bool
}

// handshake is the producer's answer to a subscription request.
type handshake struct {
	body     []byte
	rejected bool // a 4xx answer: no stream follows
}

// DialSSE connects to the producer at base, an http or https URL that may
// carry a path prefix (http://host:8080/agent1).
//
// It negotiates the layout, makes the first connection and returns once the
// event stream is open, or with the error that stopped it; ctx bounds only
// this first connection. In the appendix B layout the producer's answer to
// the subscription request is the first frame Recv returns (Event
// EventHandshake); when that answer is a rejection, Recv then returns
// io.EOF. In auto layout, a producer without a subscriptions endpoint is used
// in the legacy layout, and the first StatusConnected report says so.
//
// After that the Conn reconnects by itself whenever the stream is lost,
// resuming with Last-Event-ID, until Close, MaxReconnects failed attempts,
// or an answer that forbids retrying (401, 403, 204 No Content, a rejected
// renewal). In the appendix B layout, a stream URL the producer no longer
// knows (404, 410) is renewed by POSTing the subscription request again; the
// new answer is delivered as another EventHandshake frame. When DialSSE
// fails, no StatusClosed is reported: its error says why.
func DialSSE(ctx context.Context, base string, opts SSEOptions) (Conn, error) {
	ep, err := ParseEndpoint(base)
	if err != nil {
		return nil, err
	}
	if ep.Binding != BindingSSE {
		return nil, fmt.Errorf("transport: producer URL %q is not an http:// or https:// URL", base)
	}
	return dialSSE(ctx, ep.URL, opts)
}

// dialSSE is DialSSE to a URL ParseEndpoint made.
func dialSSE(ctx context.Context, u *url.URL, opts SSEOptions) (Conn, error) {
	cp := *u
	u = &cp
	c := &sseConn{o: opts.withDefaults(), base: u, client: opts.HTTPClient, pump: newDialPump(opts.InBand)}
	pasted := eventsPathPasted(u, c.o.EventsPath)
	if c.client == nil {
		c.ownTr = http.DefaultTransport.(*http.Transport).Clone()
		c.client = &http.Client{Transport: c.ownTr}
	}
	c.creds = creds.New(u, opts.Token, opts.Header)
	c.client = c.creds.Client(c.client)
	c.status(StatusConnecting, "")
	if w := plainWarning(u); w != "" {
		c.diag(w)
	}
	if pasted {
		c.diag(fmt.Sprintf("The address ends in %s, the path of a producer's event stream; listening to the producer at %s, the address to give next time.",
			c.o.EventsPath, u.Redacted()))
	}
	hs, resp, cancel, note, err := c.open(ctx)
	if err != nil {
		c.pump.close()
		c.releaseIdle()
		return nil, err
	}
	if resp != nil {
		c.status(StatusConnected, note)
	}
	c.pump.handOver()
	go c.run(hs, resp, cancel)
	return c, nil
}

// open settles the layout, subscribes if needed and opens the first stream.
// resp is nil when the subscription was rejected. note is news for the user.
func (c *sseConn) open(ctx context.Context) (hs *handshake, resp *http.Response, cancel context.CancelFunc, note string, err error) {
	c.layout = c.o.Layout
	if c.layout == LayoutSpec && len(c.o.SubscriptionRequest) == 0 {
		return nil, nil, nil, "", errors.New("transport: the appendix B layout needs a subscription request to send")
	}
	if c.layout == LayoutAuto && len(c.o.SubscriptionRequest) == 0 {
		c.layout = LayoutLegacy
	}
	c.subURL = c.join(c.o.SubscriptionsPath)
	if c.layout != LayoutLegacy {
		hs, err = c.subscribe(ctx)
		var na *noNegotiation
		switch {
		case err == nil:
			c.layout = LayoutSpec
		case errors.As(err, &na) && c.layout == LayoutAuto:
			c.layout = LayoutLegacy
			note = fmt.Sprintf("This producer does not offer subscription negotiation (%s); "+
				"listening to its plain event stream, without a handshake.", na.why)
		default:
			return nil, nil, nil, "", err
		}
	}
	if c.layout == LayoutLegacy {
		c.streamURL = c.join(c.o.EventsPath)
		c.sendURL = c.join(c.o.MessagesPath)
	} else {
		c.sendURL = c.join(c.o.RepliesPath)
	}
	if hs != nil && hs.rejected {
		return hs, nil, nil, "", nil
	}
	resp, cancel, err = c.connect(ctx)
	if err != nil {
		return nil, nil, nil, "", err
	}
	return hs, resp, cancel, note, nil
}

// join returns the base URL with p appended to its path.
func (c *sseConn) join(p string) *url.URL {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + strings.TrimPrefix(p, "/")
	u.RawPath = ""
	return &u
}

// noNegotiation says the producer has no appendix B subscriptions endpoint.
type noNegotiation struct{ why string }

func (e *noNegotiation) Error() string {
	return protocol.Line("transport: the producer does not offer subscription negotiation: " + e.why)
}

// subscribe POSTs the subscription request and sets streamURL from the answer.
func (c *sseConn) subscribe(ctx context.Context) (*handshake, error) {
	actx, cancel := c.attemptCtx(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.subURL.String(), bytes.NewReader(c.o.SubscriptionRequest))
	if err != nil {
		return nil, fmt.Errorf("transport: subscribe: %w", err)
	}
	c.setHeaders(req)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := doWithin(c.client, req, headerTimeout(c.o.HeaderTimeout), cancel)
	if err != nil {
		return nil, c.netErr(ctx, "subscribe", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.o.MaxFrameBytes)+1))
	if err != nil {
		return nil, c.netErr(ctx, "read the answer to the subscription request", err)
	}
	if len(body) > c.o.MaxFrameBytes {
		return nil, &FrameTooLargeError{Size: int64(len(body)), Limit: c.o.MaxFrameBytes}
	}
	isJSON := looksLikeJSONObject(body)
	switch code := resp.StatusCode; {
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed || code == http.StatusNotImplemented:
		return nil, &noNegotiation{why: fmt.Sprintf("POST %s answered %s", c.subURL.Path, resp.Status)}
	case code/100 == 2 && isJSON:
		loc := resp.Header.Get("Location")
		if loc == "" {
			c.streamURL = c.join(c.o.SpecEventsPath)
			if id := subscriptionID(body); id != "" {
				q := c.streamURL.Query()
				q.Set("subscription_id", id)
				c.streamURL.RawQuery = q.Encode()
			}
		} else {
			// Relative to the URL that answered, redirects included.
			u, err := resp.Request.URL.Parse(loc)
			if err != nil {
				return nil, fmt.Errorf("transport: the producer's Location %q is not a URL: %w", loc, err)
			}
			c.streamURL = u
		}
		return &handshake{body: body}, nil
	case code/100 == 4 && isJSON:
		return &handshake{body: body, rejected: true}, nil
	case !isJSON:
		return nil, &noNegotiation{why: fmt.Sprintf("POST %s answered %s without a JSON body", c.subURL.Path, resp.Status)}
	}
	return nil, httpError(req, resp.Status, resp.StatusCode, body)
}

// subscriptionID finds the subscription_id of an accepted subscription, to
// name the stream when the producer gave no Location.
func subscriptionID(body []byte) string {
	var m struct {
		ID string `json:"subscription_id"`
	}
	_ = json.Unmarshal(body, &m)
	return m.ID
}

func looksLikeJSONObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// attemptCtx returns a context for one request: it ends with the connection,
// or when ctx (the caller's) ends, whichever is first.
func (c *sseConn) attemptCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	actx, cancel := context.WithCancel(c.pump.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return actx, func() { stop(); cancel() }
}

// connect opens the event stream. On success the caller owns resp and must
// call cancel when done with it. ctx bounds only the wait for the response
// headers.
func (c *sseConn) connect(ctx context.Context) (*http.Response, context.CancelFunc, error) {
	sctx, cancel := context.WithCancel(c.pump.ctx)
	stop := context.AfterFunc(ctx, cancel)
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, c.streamURL.String(), nil)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("transport: open the event stream: %w", err)
	}
	c.setHeaders(req)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if c.lastID != "" {
		req.Header.Set("Last-Event-ID", c.lastID)
	}
	resp, err := doAccepted(c.client, req, headerTimeout(c.o.HeaderTimeout), cancel)
	if !stop() && err == nil {
		// ctx ended as the answer came: the stream is canceled already.
		resp.Body.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, nil, c.netErr(ctx, "open the event stream", err)
	}
	fail := func(err error) (*http.Response, context.CancelFunc, error) {
		resp.Body.Close()
		cancel()
		return nil, nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNoContent:
		return fail(errStopped)
	case resp.StatusCode/100 != 2:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return fail(httpError(req, resp.Status, resp.StatusCode, body))
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "text/event-stream" && mt != "text/plain" {
			return fail(fmt.Errorf("transport: GET %s answered with %s, not an event stream", c.streamURL.Redacted(), mt))
		}
	}
	return resp, cancel, nil
}

// errStopped is a 204 No Content to a stream request: the SSE way of saying
// "do not reconnect".
var errStopped = errors.New("transport: the producer asked not to reconnect")

// setHeaders puts the credentials in req when it goes to the origin the
// user named.
func (c *sseConn) setHeaders(req *http.Request) { c.creds.Apply(req.Header, req.URL) }

// netErr wraps a request error, naming the real cause when it was Close
// (ErrClosed) or the end of the caller's ctx.
func (c *sseConn) netErr(ctx context.Context, what string, err error) error {
	if c.pump.closed.Load() {
		return ErrClosed
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return fmt.Errorf("transport: %s: %w", what, err)
}

// run is the reader goroutine: it delivers the handshake, reads streams and
// reconnects.
func (c *sseConn) run(hs *handshake, resp *http.Response, cancel context.CancelFunc) {
	end := c.loop(hs, resp, cancel)
	c.releaseIdle()
	c.status(StatusClosed, end.words)
	c.pump.finish(end.final, end.reason)
}

func (c *sseConn) loop(hs *handshake, resp *http.Response, cancel context.CancelFunc) ending {
	if hs != nil && !c.put(Frame{Data: hs.body, Event: EventHandshake, At: time.Now()}) {
		return closedEnd
	}
	if resp == nil {
		return ending{final: io.EOF, words: "The producer rejected the subscription.", reason: EndRejected}
	}
	failed := 0               // reconnect attempts in a row that delivered nothing
	empty := 0                // streams in a row the producer ended without a message
	var planned time.Duration // the next delay, when a status line said it
	var lastErr error
	var down outage
	for {
		if resp != nil {
			n, err := c.read(resp)
			resp.Body.Close()
			cancel()
			resp = nil
			if c.pump.ctx.Err() != nil {
				return closedEnd
			}
			if n > 0 {
				failed, empty = 0, 0
			}
			lastErr = err
			words := lossWords(err)
			if n == 0 && errors.Is(err, io.EOF) {
				empty++
				if c.o.MaxEmptyStreams > 0 && empty > c.o.MaxEmptyStreams {
					// A failure, though Recv says io.EOF: the reconnects
					// before it were real.
					return ending{final: io.EOF, reason: EndFailed,
						words: fmt.Sprintf("The producer ended the stream %d times in a row without sending anything; stopped reconnecting.", empty)}
				}
				planned = c.backoff(failed + 1)
				words = fmt.Sprintf("The producer ended the stream without sending anything (%d in a row); trying again in %s.",
					empty, planned.Round(time.Millisecond))
			} else {
				empty = 0
			}
			if c.o.MaxReconnects >= 0 {
				c.status(StatusReconnecting, words)
				down.lost()
			}
		}
		failed++
		if c.o.MaxReconnects < 0 || (c.o.MaxReconnects > 0 && failed > c.o.MaxReconnects) {
			return ending{final: fmt.Errorf("transport: gave up reconnecting: %w", lastErr), words: "Gave up reconnecting."}
		}
		delay := c.backoff(failed)
		if planned > 0 {
			delay, planned = planned, 0
		}
		if !c.pump.sleep(delay) {
			return closedEnd
		}
		var err error
		resp, cancel, err = c.reconnect()
		switch {
		case err == nil && empty > 0:
			// Said when the stream brings a message (read): an empty
			// stream is one line, not "reconnecting" and "connected".
			c.connectedUnsaid = true
		case err == nil:
			c.status(StatusConnected, "")
		case c.pump.ctx.Err() != nil:
			return closedEnd
		case errors.Is(err, errStopped):
			return ending{final: io.EOF, words: "The producer ended the stream.", reason: EndNormal}
		case errors.As(err, new(*rejectedError)):
			return ending{final: io.EOF, words: "The producer rejected the renewed subscription.", reason: EndRejected}
		case isFatal(err):
			return ending{final: err, words: "The producer refused the connection."}
		default:
			lastErr = err
			var late *HeaderTimeoutError
			if errors.As(err, &late) {
				c.diag(late.Error() + "; trying again.")
			} else if words := down.failed(err); words != "" {
				c.diag(words)
			}
		}
	}
}

// reconnect opens the stream again; in the appendix B layout a stream the
// producer no longer knows (404, 410) is subscribed anew, and the new answer
// is delivered as a handshake frame.
func (c *sseConn) reconnect() (*http.Response, context.CancelFunc, error) {
	resp, cancel, err := c.connect(c.pump.ctx)
	var he *HTTPError
	if c.layout != LayoutSpec || !errors.As(err, &he) ||
		(he.StatusCode != http.StatusNotFound && he.StatusCode != http.StatusGone) {
		return resp, cancel, err
	}
	hs, err := c.subscribe(c.pump.ctx)
	if err != nil {
		return nil, nil, err
	}
	if !c.put(Frame{Data: hs.body, Event: EventHandshake, At: time.Now()}) {
		return nil, nil, ErrClosed
	}
	if hs.rejected {
		return nil, nil, &rejectedError{}
	}
	return c.connect(c.pump.ctx)
}

// rejectedError: a renewed subscription was refused.
type rejectedError struct{}

func (*rejectedError) Error() string {
	return "transport: the producer rejected the renewed subscription"
}

// isFatal tells errors that retrying cannot fix.
func isFatal(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && (he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden)
}

// read delivers the frames of one stream until it ends; n counts them.
func (c *sseConn) read(resp *http.Response) (n int, err error) {
	rd := NewSSEReader(resp.Body)
	rd.own = true // each frame's data is read into its own slice, not copied
	rd.MaxFrameBytes = c.o.MaxFrameBytes
	rd.SetLastEventID(c.lastID)
	// The frames parsed from bytes already read are queued together, a
	// few at a time under one lock, and always before the reader reads
	// on (it may wait for the network) and before anything is said: a
	// frame is held only while the next one is parsed.
	held := make([]Frame, 0, heldFrames)
	closed := false
	flush := func() {
		if !c.putAll(held) {
			closed = true
		}
		clear(held)
		held = held[:0]
	}
	rd.beforeRead = flush
	rd.OnDiagnostic = func(msg string) { flush(); c.diag(msg) }
	defer func() {
		flush() // the frames before the end come before the words about it
		// What a reconnect resumes with, taken once the stream ends.
		c.lastID = rd.LastEventID()
		if d, ok := rd.Retry(); ok {
			c.retry = max(d, minRetry)
		}
	}()
	// The frames one read brought arrived together: they are stamped
	// with one reading of the clock, taken as the first is parsed.
	var at time.Time
	stamped := -1 // rd.reads when at was taken
	var ev SSEEvent
	for {
		err := rd.next(&ev) // ev is written only for an event (err nil)
		if closed {
			return n, ErrClosed
		}
		if err != nil {
			var tl *FrameTooLargeError
			if errors.As(err, &tl) {
				flush()
				c.diag(fmt.Sprintf("Skipped a message from the producer that is too large: %d bytes, the limit is %d bytes.", tl.Size, tl.Limit))
				continue
			}
			return n, err
		}
		if len(ev.Data) == 0 {
			continue // an empty data line is no message; some servers use it to keep alive
		}
		if c.connectedUnsaid {
			c.connectedUnsaid = false
			c.status(StatusConnected, "") // nothing is held yet
		}
		if rd.reads != stamped {
			at, stamped = time.Now(), rd.reads
		}
		// Written in its place (held is cleared once queued), not built
		// aside and copied.
		held = held[:len(held)+1]
		f := &held[len(held)-1]
		f.Data, f.ID, f.Event, f.At = ev.Data, ev.ID, ev.Type, at
		if n++; len(held) == heldFrames {
			if flush(); closed {
				return n, ErrClosed
			}
		}
	}
}

// heldFrames is the most frames sseConn.read holds before queueing them.
const heldFrames = 16

// lossWords says in plain words why a stream ended.
func lossWords(err error) string {
	switch {
	case errors.Is(err, io.EOF):
		return "The producer closed the event stream."
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "The producer went away in the middle of a message."
	}
	return "The event stream failed: " + err.Error()
}

// backoff returns the delay before reconnect attempt n (from 1).
func (c *sseConn) backoff(n int) time.Duration {
	d := c.o.InitialBackoff
	if c.retry > 0 {
		d = c.retry
	}
	return backoff(d, max(c.o.MaxBackoff, d), n)
}

func (c *sseConn) status(s Status, detail string) {
	c.pump.tell(Note{Status: s, Text: detail}, c.o.OnStatus, c.o.OnDiagnostic)
}

func (c *sseConn) diag(msg string) {
	c.pump.tell(Note{Problem: true, Text: msg}, c.o.OnStatus, c.o.OnDiagnostic)
}

func (c *sseConn) releaseIdle() {
	if c.ownTr != nil {
		c.ownTr.CloseIdleConnections()
	}
}

// Recv implements Conn. Frames may be a handshake (Event EventHandshake) or
// stream events; a reconnect is not an error. It returns io.EOF after a
// rejected subscription or when the producer asked not to reconnect,
// ErrClosed after Close, and otherwise the error that made the connection
// give up.
func (c *sseConn) Recv(ctx context.Context) (Frame, error) { return c.pump.recv(ctx) }

// RecvBatch implements BatchReceiver.
func (c *sseConn) RecvBatch(ctx context.Context, dst []Frame, limit int) ([]Frame, error) {
	return c.pump.recvBatch(ctx, dst, limit)
}

// Send implements Conn: it POSTs msg to the replies path (appendix B) or the
// messages path (legacy) and returns nil on any 2xx answer, or an
// *HTTPError. The producer's answer to a subscription.renegotiate, which
// comes as the body of the POST, is queued for Recv as a frame with Event
// EventHandshake, as the message bindings deliver it, by the time Send
// returns: after the frames received before it, before those received
// after.
func (c *sseConn) Send(ctx context.Context, msg []byte) error {
	answer, err := c.post(ctx, msg)
	if answer != nil {
		c.pump.insert(Frame{Data: answer, Event: EventHandshake, At: time.Now()})
	}
	return err
}

// SendAnswered implements Answerer: as Send, but the producer's answer to a
// subscription.renegotiate is returned to the caller instead of queued.
func (c *sseConn) SendAnswered(ctx context.Context, msg []byte) ([]byte, error) {
	return c.post(ctx, msg)
}

// post sends msg; answer is the producer's answer to a renegotiation.
func (c *sseConn) post(ctx context.Context, msg []byte) (answer []byte, err error) {
	if c.pump.closed.Load() {
		return nil, ErrClosed
	}
	actx, cancel := c.attemptCtx(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.sendURL.String(), bytes.NewReader(msg))
	if err != nil {
		return nil, fmt.Errorf("transport: send: %w", err)
	}
	c.setHeaders(req)
	if c.o.SendHeader != nil {
		h, err := c.o.SendHeader(msg)
		if err != nil {
			return nil, fmt.Errorf("transport: send: %w", err)
		}
		for k, v := range h {
			req.Header[http.CanonicalHeaderKey(k)] = v
		}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client.Do(req) // bounded by ctx: the caller knows how long an answer may take
	if err != nil {
		return nil, c.netErr(ctx, "send to "+c.sendURL.Redacted(), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if renegotiationAnswer(msg, body) {
		return body, nil
	}
	if resp.StatusCode/100 == 2 {
		return nil, nil
	}
	return nil, httpError(req, resp.Status, resp.StatusCode, body)
}

// renegotiationAnswer reports whether body is the producer's answer to msg,
// a subscription.renegotiate.
func renegotiationAnswer(msg, body []byte) bool {
	if subscriptionType(msg) != "subscription.renegotiate" {
		return false
	}
	switch subscriptionType(body) {
	case "subscription.accepted", "subscription.rejected":
		return true
	}
	return false
}

// Close implements Conn.
func (c *sseConn) Close() error {
	if c.pump.close() {
		c.releaseIdle()
	}
	return nil
}

// httpError builds an *HTTPError, reading the producer's reason from a JSON
// body of the form {"error": "...", "message": "..."} or
// {"error": {"code": "...", "message": "..."}}.
func httpError(req *http.Request, status string, code int, body []byte) *HTTPError {
	e := &HTTPError{Method: req.Method, URL: req.URL.Redacted(), StatusCode: code, Status: protocol.Text(status)}
	var m struct {
		Error   json.RawMessage `json:"error"`
		Message protocol.Text   `json:"message"`
	}
	if json.Unmarshal(body, &m) != nil {
		return e
	}
	e.Message = m.Message
	if json.Unmarshal(m.Error, &e.Code) != nil {
		var inner struct {
			Code    protocol.Text `json:"code"`
			Message protocol.Text `json:"message"`
		}
		if json.Unmarshal(m.Error, &inner) == nil {
			e.Code = inner.Code
			if e.Message == "" {
				e.Message = inner.Message
			}
		}
	}
	return e
}

// eventsPathPasted takes the deployed layout's event stream path off the
// end of u's path, when a person pasted the stream's whole address
// (http://host:8080/events) instead of the producer's, and reports whether
// it did. A URL with a query is left as it is.
func eventsPathPasted(u *url.URL, eventsPath string) bool {
	p := strings.TrimSuffix(u.Path, "/")
	if u.RawQuery != "" || eventsPath == "" || !strings.HasSuffix(p, eventsPath) {
		return false
	}
	u.Path, u.RawPath = strings.TrimSuffix(p, eventsPath), ""
	return true
}
