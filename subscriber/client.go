package subscriber

// client.go: the Client, its owner goroutine (the owner's turn) and the
// ordered update queue.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/transport"
)

// Config configures a Client. The zero value is usable: a subscription with
// default terms that cannot reply, unsigned, no decisions without the user.
type Config struct {
	// Identity names the subscriber in its subscription request.
	Identity session.Identity
	// Terms are the terms asked for. Terms.CanConfirm and Terms.CanClarify
	// must say truthfully whether anything can answer prompts: a person
	// typing, a policy, or automatic rejection (spec §5.3.1.4); the
	// producer applies its defaults at once when they are false.
	Terms session.Terms
	// ReorderWait is the longest an event is held waiting for a missing
	// earlier one. Zero means the engine's default.
	ReorderWait time.Duration
	// DecidedBy is the reply's decided_by for answers the user gives, and
	// for automatic rejection ("" leaves it out).
	DecidedBy string

	// Transport configures the connection. The client sets its own
	// SubscriptionRequest, InBand and SendHeader; the connection's status
	// and problems come to it in band, among the frames, so OnStatus and
	// OnDiagnostic are not used.
	Transport transport.Options

	// Signer, when not nil, signs replies and its public key is offered in
	// the subscription request.
	Signer Signer
	// Tasks asks the producer whether it takes tasks (the agent-tasks
	// extension, protocol.TasksPrefix): Client.TakesTasks says its answer.
	Tasks bool
	// NoSignerWords, when Signer is nil, says why in reply updates
	// (such as "--no-sign"); empty means "no signing key".
	NoSignerWords string
	// Hints, when not nil, adds the program's hints (a flag, a command)
	// to the client's words, which name none; see Hint.
	Hints Hints

	// Gate decides prompts without the user; nil means nobody does.
	Gate *policy.Gate
	// AutoReplyBy is the decided_by of the gate's automatic rejections;
	// empty means DecidedBy.
	AutoReplyBy string

	// Manifest configures the manifest check.
	Manifest ManifestConfig

	// Credentials, when not empty, is said once after "Connecting to …":
	// a warning that nothing proves who the subscriber is.
	Credentials string

	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// Schemas, when not nil, are the compiled schemas frames are checked
	// against, shared with other clients (a *protocol.Schemas is safe for
	// concurrent use); nil means the client compiles its own when the
	// first frame arrives, which takes tens of milliseconds. A program
	// that starts many clients, such as a replay that seeks, compiles them
	// once with protocol.NewSchemas.
	Schemas *protocol.Schemas

	// Tap, when not nil, is told every frame received and every message
	// sent, with its time, in the owner's turn (on the owner goroutine,
	// or on the reading goroutine handling a few events for it), in
	// order. It must not block for long, keep data or call the client's
	// methods (they wait for the owner's turn).
	Tap func(dir Direction, data []byte, at time.Time)
	// TapStatus, when not nil, is told each status notice of the transport
	// (connecting, connected, reconnecting, closed) with its words and
	// time, in the owner's turn, in its place among the frames told to
	// Tap. It must not block for long.
	TapStatus func(s transport.Status, detail string, at time.Time)
	// Passive, when set, sends no subscription request: the client
	// listens to what the producer streams without subscribing (on HTTP,
	// the deployed layout's plain stream).
	Passive bool
	// PromptNumbers, when not nil, numbers the prompts offered for an
	// answer (session.Numbers makes one that is safe to share): clients
	// sharing it number their prompts uniquely across them, so one person
	// answering several agents never answers one agent's prompt for
	// another's. nil numbers from 1 in each client.
	PromptNumbers func() int
	// MaxQueued is how many updates may wait to be taken before the
	// client stops reading from the producer (backpressure; nothing is
	// dropped). 0 means 4096. A program with many clients lowers it to
	// bound their memory together.
	MaxQueued int
	// DedupeWindow is how many recent events are remembered to drop
	// duplicates (session.Config.DedupeWindow); 0 means the engine's
	// default, 65,536. A program with many clients lowers it.
	DedupeWindow int
	// Dedupe, when not nil, is a window of recent events shared with other
	// clients (session.Config.Dedupe), in place of DedupeWindow: a Group
	// gives its members one, so that their memory is one budget.
	Dedupe *session.Dedupe

	// blocks, when not nil, is the pool of blocks of updates shared with
	// other clients (a Group's members): see updateQueue.
	blocks *blockPool
}

// Direction is the way a tapped frame went. Its values are the letters the
// capture format uses, so capture.Dir(string(dir)) names the same direction.
type Direction byte

const (
	Received Direction = 'i' // a frame from the producer, as received (unsanitized)
	Sent     Direction = 'o' // a message to the producer: a reply, a renegotiation, a close
)

// sendTimeout bounds one reply, so a stuck producer cannot freeze the client.
const sendTimeout = 10 * time.Second

// producerEnded is the End's words when the connection ended without
// saying why.
const producerEnded = "The producer ended the stream."

// maxQueued is how many updates may wait to be taken before the client
// stops reading frames from the producer.
const maxQueued = 4096

// Client is the client of one subscription. Its methods are safe for
// concurrent use; one goroutine should read its updates with Next or
// NextBatch until io.EOF. A program that stops reading holds the producer
// back once a few thousand updates wait (nothing is dropped); one that is
// done should Close the client.
type Client struct {
	cfg      Config
	endpoint string             // as the user wrote it, for words
	ep       transport.Endpoint // parsed once, in newClient
	epErr    error              // why endpoint does not parse, for Start
	isLive   bool               // a producer is at the endpoint, not a file (live)
	now      func() time.Time

	// own is the owner's turn: whoever holds it may use the fields below
	// ("owned"). The run goroutine holds it but while it waits for work;
	// the reading goroutine takes it, when free, to handle a small burst
	// itself (handleHere).
	own sync.Mutex
	// Owned (under own).
	conn           transport.Conn
	eng            *session.Engine
	neg            negotiation
	manif          manifestState
	sign           signState
	retry          *retryConn
	in             *inbox
	recvErr        chan error
	auto           []*session.Prompt // prompts to answer by the gate once Handle returns
	heldNote       *note             // a "connection lost" waiting to be told or withdrawn
	closedWords    string            // the transport's words for the connection's end
	cause          session.Cause     // why prompts pending at the end stop waiting; set before finish
	rejectedBy     *RejectedError    // the refusal that stands, until a retry is accepted
	saidConnecting bool
	finished       bool
	tasksSent      int // agtask messages sent that no agtask:refused has answered
	// armed is the deadline the run goroutine's timer is set for (zero:
	// none): a burst handled by the reading goroutine that brings an
	// earlier one wakes it (handleHere).
	armed time.Time
	// here counts the bursts the reading goroutine handled itself.
	here int

	// Requests to the run goroutine.
	reqs    chan func()
	closing chan string   // Close's words
	done    chan struct{} // closed when the run goroutine has ended
	dialed  chan struct{} // closed when the first connection is made or failed
	dialErr error         // written before dialed is closed

	// The update queue.
	mu        sync.Mutex
	queue     updateQueue       // guarded by mu
	ended     bool              // the End is queued; guarded by mu
	shown     map[int]time.Time // prompts offered in an update already taken, and when; guarded by mu
	snap      []session.Prompt  // copies of the pending prompts, at the last snapshot; guarded by mu
	terms     Terms             // guarded by mu
	qsig      chan struct{}
	drained   chan struct{}
	closeOnce sync.Once
	// crit is the number of updates queued up to and including the last
	// critical one (0: none waiting; critical.go). Guarded by mu.
	crit int
	// listed, when not nil, is told that an update was queued after none,
	// or a critical one: a Group takes the updates (Group.Feed). Guarded
	// by mu.
	listed func(critical bool)
	// shownSettled holds, oldest first, the last maxShownSettled prompts
	// of shown that settled since; an older one is forgotten. Guarded by mu.
	shownSettled []int
}

// Terms is where the subscription's terms stand.
type Terms struct {
	// SubscriptionID is the producer's subscription_id; empty before an
	// acceptance and without a subscription (a file, the deployed layout).
	SubscriptionID string
	Requested      protocol.Capabilities // the request, renegotiations merged in
	Honored        protocol.Capabilities // what the producer granted
	// Acceptance is nil before the first acceptance and a new one at each
	// (the first and each renegotiation's): a program that shows the
	// terms tells a new grant by comparing it with the last it saw.
	Acceptance *Acceptance
	Pending    bool // a renegotiation waits for its answer
}

// Acceptance marks one acceptance of the subscription (Terms.Acceptance).
type Acceptance struct{ n int }

// Number is how many acceptances the subscription has had, this one
// included: 1 for the first.
func (a *Acceptance) Number() int { return a.number() }

func (a *Acceptance) number() int {
	if a == nil {
		return 0
	}
	return a.n
}

// newClient makes the client of endpoint, which ParseEndpoint made ep of
// or refused with err.
func newClient(endpoint string, ep transport.Endpoint, err error, cfg Config) *Client {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err != nil {
		// New's endpoint only names the producer: its form says enough.
		ep = transport.Endpoint{Binding: transport.BindingOf(endpoint)}
	}
	c := &Client{
		cause: session.CauseEnded,
		cfg:   cfg, endpoint: endpoint, ep: ep, epErr: err, now: cfg.Now,
		isLive: endpoint != "" && ep.Binding.Answers(),
		in:     newInbox(), recvErr: make(chan error, 1),
		reqs: make(chan func()), closing: make(chan string, 1), done: make(chan struct{}), dialed: make(chan struct{}),
		qsig: make(chan struct{}, 1), drained: make(chan struct{}, 1),
		shown: map[int]time.Time{},
	}
	c.queue.pool = cfg.blocks
	if c.queue.pool == nil {
		c.queue.pool = new(blockPool)
	}
	c.eng = session.New(session.Config{ReorderWait: cfg.ReorderWait, DecidedBy: cfg.DecidedBy, Numbers: cfg.PromptNumbers, DedupeWindow: cfg.DedupeWindow, Dedupe: cfg.Dedupe}, (*engineOutput)(c))
	c.eng.SetAnswerless(c.answerless)
	c.eng.Filtered(cfg.Terms.Filters())
	return c
}

// Start dials endpoint in the background and returns at once: status
// updates flow from the first "Connecting to …", and a failure to connect
// comes as the End, with its Err.
//
// ctx bounds the whole subscription, not only the dialling: the run lasts
// until ctx is done, Close is called, or the subscription ends. When ctx is
// done the client closes the subscription and ends ("Stopped.").
func Start(ctx context.Context, endpoint string, cfg Config) *Client {
	ep, err := transport.ParseEndpoint(endpoint)
	return start(ctx, endpoint, ep, err, cfg)
}

// start is Start of an endpoint already parsed (err: why it did not parse).
func start(ctx context.Context, endpoint string, ep transport.Endpoint, err error, cfg Config) *Client {
	c := newClient(endpoint, ep, err, cfg)
	opts := c.transportOptions()
	go c.run(ctx, func(ctx context.Context) (transport.Conn, error) {
		if c.epErr != nil {
			return nil, c.epErr
		}
		conn, err := transport.DialEndpoint(ctx, c.ep, opts)
		if err != nil {
			return nil, err
		}
		return c.retrying(conn, opts), nil
	})
	return c
}

// Dial connects to endpoint and subscribes, returning once the connection
// is made (the producer's answer to the subscription comes in the stream).
// When the connection fails it returns the error with the client, which has
// ended: its updates still tell what happened up to the failure, and its End
// carries the same error.
//
// ctx bounds the whole subscription, as it does for Start: unlike
// net.Dialer's, it is not done with once Dial returns. Cancelling it while
// Dial waits ends the attempt (the error wraps ctx's); cancelling it later
// closes the subscription ("Stopped."). To bound only the dialling, give
// Dial a context that lives as long as the subscription should, and call
// Close when the dialling takes too long.
func Dial(ctx context.Context, endpoint string, cfg Config) (*Client, error) {
	c := Start(ctx, endpoint, cfg)
	<-c.dialed
	return c, c.dialErr
}

// New runs the client over conn, which it then owns and closes; endpoint,
// when known, names the producer for manifests and status lines. The
// subscription request, if any, was already made by whoever opened conn.
//
// ctx bounds the whole run, as it does for Start.
func New(ctx context.Context, conn transport.Conn, endpoint string, cfg Config) *Client {
	ep, err := transport.ParseEndpoint(endpoint)
	c := newClient(endpoint, ep, err, cfg)
	go c.run(ctx, func(context.Context) (transport.Conn, error) { return conn, nil })
	return c
}

// transportOptions are cfg's transport options with the client's own
// handshake, callbacks and signing.
func (c *Client) transportOptions() transport.Options {
	o := c.cfg.Transport
	o.SSE.SubscriptionRequest = c.requestBody(c.request())
	if c.cfg.Passive {
		o.SSE.SubscriptionRequest = nil
	}
	// The connection's status and problems come through Recv, in their
	// place among the frames: one ordered path (read, the inbox, handle).
	o.SSE.InBand = true
	o.SSE.OnStatus, o.SSE.OnDiagnostic = nil, nil
	if c.cfg.Signer != nil {
		o.SSE.SendHeader = c.sendHeader
	}
	return o
}

// run is the owner goroutine.
func (c *Client) run(ctx context.Context, dial func(context.Context) (transport.Conn, error)) {
	defer close(c.done)
	defer func() {
		if c.conn != nil {
			c.conn.Close()
		}
	}()
	c.own.Lock()
	defer c.own.Unlock()
	if c.isLive {
		// Said before dialling, which a producer may keep waiting; the
		// transport's own "connecting" note is then not said again.
		c.show(note{isStatus: true, status: transport.StatusConnecting})
	}
	conn, err := dial(ctx)
	if err != nil {
		c.dialErr = fmt.Errorf("connect to %s: %w", c.endpoint, err)
		close(c.dialed)
		c.emitEnd("", c.dialErr)
		return
	}
	c.conn = conn
	close(c.dialed)
	go c.read(ctx)
	c.loop(ctx)
}

// read is the receiving goroutine: frames are decoded here, beside the
// owner, on another core, and put in the inbox in the order received. The
// connection's notes (its status, its problems) come through Recv among
// the frames and take the same way, so they keep their place: this is the
// only way anything from the connection reaches the owner.
func (c *Client) read(ctx context.Context) {
	dec := protocol.Decoder{Schemas: c.cfg.Schemas}
	// What the connection has received is taken at once (one hand-off a
	// burst, not one a frame), then decoded and put in the inbox a few
	// frames at a time, so the owner starts on the first while the rest
	// are decoded.
	burst := make([]transport.Frame, 0, readBurst)
	var group [putGroup]decoded
	here := batching(c.conn)
	for {
		var err error
		burst, err = transport.RecvBatch(ctx, c.conn, burst[:0], readBurst)
		if err != nil {
			c.recvErr <- err // after every frame received: each is in the inbox, or handled (handleHere)
			return
		}
		k := 0
		for i := range burst {
			f := &burst[i]
			if n := f.Note; n != nil {
				group[k] = decoded{frame: *f, note: &note{isStatus: !n.Problem, status: n.Status, text: n.Text, problem: n.Problem}}
			} else {
				decodeInto(&dec, f, &group[k]) // zero: cleared once put
			}
			if k++; k < len(group) && i < len(burst)-1 {
				continue
			}
			// A burst of a few frames, the last the connection has, is
			// handled here when it can be: the owner is not woken for it.
			if !here || len(burst) > putGroup || !c.handleHere(group[:k]) {
				if !c.in.putAll(group[:k], ctx.Done(), c.done) {
					return
				}
			}
			clear(group[:k]) // the frames go with the inbox, not with these slices
			k = 0
		}
		clear(burst)
	}
}

// batching reports whether conn gives all the frames it has received at
// once (transport.BatchReceiver, as the transports' connections do): a
// small burst is then the last it has, and the reading goroutine may
// handle it (handleHere). A connection that gives a frame a call may have
// a flood waiting behind each: its frames are handed to the owner, so that
// decoding the next goes on beside the handling.
func batching(conn transport.Conn) bool {
	if r, ok := conn.(*retryConn); ok {
		conn = r.conn()
	}
	_, ok := conn.(transport.BatchReceiver)
	return ok
}

// handleHere handles ds, a small burst decoded (at most putGroup frames),
// on the reading goroutine itself, when the owner's turn is free and
// nothing waits in the inbox before it: an agent that sends an event at a
// time then costs one goroutine woken an event, not two. It reports false,
// having handled nothing, when ds must go through the inbox: the owner is
// busy or paused, the queue of updates is full, the client is ending, or a
// frame may lead to more than queuing updates (a note of the connection, a
// message of the handshake, a prompt the gate may answer by sending a
// reply, an event that may release held ones, prompts among them, or whose
// manifest is still to be fetched). What it handles is handled as the
// owner would, in the same order: ds are the oldest frames not handled,
// and the owner's turn is held throughout.
func (c *Client) handleHere(ds []decoded) bool {
	for i := range ds {
		if d := &ds[i]; d.note != nil || d.message != "" || d.answer || d.ev == nil || d.ev.Type == protocol.TypeAwaitingConfirmation {
			return false
		}
	}
	if !c.own.TryLock() {
		return false
	}
	defer c.own.Unlock()
	if c.finished || c.neg.end != "" || c.in.waiting() || !c.room() || (c.live() && c.manif.checked == "") || c.eng.Holding() {
		return false
	}
	c.handleBurst(ds)
	c.here++
	c.wakeIfDue()
	return true
}

// wakeIfDue wakes the run goroutine when what the reading goroutine
// handled asks something of it: an earlier deadline than its timer's, or
// the end of the subscription. The owner's turn is held.
func (c *Client) wakeIfDue() {
	next := c.eng.NextDeadline()
	if c.neg.end != "" || c.finished || !next.IsZero() && (c.armed.IsZero() || next.Before(c.armed)) {
		signal(c.in.ready)
	}
}

// putGroup is how many decoded frames the reading goroutine puts in the
// inbox at once: one lock for a few frames, and the owner is not kept
// waiting for a whole burst.
const putGroup = 8

// readBurst is the most frames the reading goroutine takes from the
// connection at once: a quarter of the transport's queue of frames (256),
// so that a burst taken leaves the next one waiting.
const readBurst = 64

// readNote puts a line of the client's own in the inbox from the reading
// goroutine, after the frames read before it (the retry's countdown, said
// while Recv waits to subscribe again).
func (c *Client) readNote(n note) {
	c.in.put(decoded{note: &n}, nil, c.done)
}

// loop is the run goroutine's work once connected. It holds the owner's
// turn (c.own) but while it waits: the reading goroutine may then handle
// a small burst itself (handleHere).
func (c *Client) loop(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	timer.Stop() // set by resetTimer for the engine's next deadline (c.armed)
	defer timer.Stop()
	c.armed = time.Time{}
	for {
		c.resetTimer(timer)
		var ready <-chan struct{}
		if c.room() {
			ready = c.in.ready
		}
		// What woke the loop is noted while the owner's turn is free,
		// and handled once it is taken again.
		var (
			woke wake
			req  func()
			why  string
			err  error
		)
		c.own.Unlock()
		select {
		case <-ready:
			woke = wokeReady
		case req = <-c.reqs:
			woke = wokeReq
		case <-c.drained:
			woke = wokeDrained
		case <-timer.C:
			woke = wokeTimer
		case why = <-c.closing:
			woke = wokeClosing
		case err = <-c.recvErr:
			woke = wokeEnded
		case <-ctx.Done():
			woke = wokeDone
		}
		c.own.Lock()
		switch woke {
		case wokeReady:
			// What is already waiting is one burst.
			c.handleQueued()
		case wokeReq:
			req()
		case wokeDrained:
			continue
		case wokeTimer:
			c.armed = time.Time{}
			c.eng.Tick(c.now())
			c.answerByGate(c.now())
			continue
		case wokeClosing:
			c.closeBecause(why)
			return
		case wokeEnded:
			select {
			case why := <-c.closing:
				// Close was asked for before the connection's end was
				// handled: the user's close is the end, and is sent.
				c.closeBecause(why)
				return
			default:
			}
			c.connectionEnded(ctx, err)
			return
		case wokeDone:
			c.heldNote = nil
			c.closeSubscription(session.CloseShutdown, "Stopped.")
			c.cause = c.quitCause()
			c.finish("Stopped.", nil)
			return
		}
		if c.ending() {
			return
		}
	}
}

// wake is what woke the run goroutine's loop.
type wake int

const (
	wokeReady   wake = iota // frames wait in the inbox
	wokeReq                 // a request to run (do)
	wokeDrained             // the queue of updates has room again
	wokeTimer               // a deadline of the engine
	wokeClosing             // Close was called
	wokeEnded               // the connection ended (its error)
	wokeDone                // the run's context is done
)

// connectionEnded handles the end of the connection (err, from the reading
// goroutine, which has put or handled every frame received before it)
// and finishes the subscription.
func (c *Client) connectionEnded(ctx context.Context, err error) {
	c.handleQueued() // sent before the end: a rejection, the last events, the end's note
	if c.ending() {
		return
	}
	switch {
	case ctx.Err() != nil:
		c.heldNote = nil
		c.closeSubscription(session.CloseShutdown, "Stopped.")
		c.cause = c.quitCause()
		c.finish("Stopped.", nil)
	case errors.Is(err, io.EOF):
		why := c.closedWords
		if r := transport.EndReasonOf(c.conn, err); r == transport.EndNormal || r == transport.EndClosed {
			// An end on purpose: nothing was lost, and the
			// reconnecting line is withdrawn.
			c.heldNote = nil
		}
		if why == "" {
			why = producerEnded
		}
		c.sayHeld()
		c.cause = session.CauseGone
		c.finish(why, c.rejection())
	default:
		c.sayHeld()
		c.cause = session.CauseGone
		c.finish("The connection to the producer was lost and could not be restored, so nothing more will arrive.", fmt.Errorf("receive: %w", err))
	}
}

// closeBecause ends the run as Close asked, telling the producer.
func (c *Client) closeBecause(why string) {
	c.heldNote = nil // quitting loses no connection
	c.closeSubscription(session.CloseShutdown, why)
	c.cause = c.quitCause()
	c.finish(why, nil)
}

// quitCause says how the user's end of the run reached the producer.
func (c *Client) quitCause() session.Cause {
	if c.neg.untold {
		return session.CauseQuitUntold
	}
	return session.CauseQuit
}

// room reports whether fewer than maxQueued updates wait to be taken.
func (c *Client) room() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.queue.len() < c.maxQueued()
}

// resetTimer sets t for the engine's next deadline, unless it is set for
// it already (c.armed): an event that brings no new deadline costs no
// timer call.
func (c *Client) resetTimer(t *time.Timer) {
	next := c.eng.NextDeadline()
	if next.Equal(c.armed) {
		return
	}
	t.Stop() // since Go 1.23 no stale value is received after Stop or Reset
	c.armed = next
	if next.IsZero() {
		return
	}
	t.Reset(max(next.Sub(c.now()), 0))
}

// handleQueued handles the frames waiting in the inbox as one burst.
// Nothing is held for the end of the burst: a prompt is told when its event
// is, and what settles it when that comes, so the lines are the same
// however the producer's frames were split into reads.
func (c *Client) handleQueued() {
	burst := c.in.take()
	if len(burst) == 0 {
		return
	}
	c.handleBurst(burst)
	c.in.done(burst)
}

// handleBurst handles the frames of burst, in order, at one time. Once
// a frame has ended the subscription (the producer's subscription.close,
// a manifest that did not verify, terms refused), the frames after it are
// not handled: no subscription is left for them, and the frames of a
// later burst are not handled either (the client ends), so where the
// bursts happened to be cut decides nothing.
func (c *Client) handleBurst(burst []decoded) {
	if len(burst) == 0 {
		return
	}
	now := c.now()
	for i := range burst {
		if c.neg.end != "" || c.finished {
			return
		}
		if n := burst[i].note; n != nil {
			c.show(*n)
			continue
		}
		c.handleAt(&burst[i], now)
	}
}

// ending reports whether the subscription must end now; if so it has
// closed it and told why.
func (c *Client) ending() bool {
	if c.finished {
		return true
	}
	if c.neg.end == "" {
		return false
	}
	c.closeSubscription(session.CloseTerms, c.neg.end)
	if c.neg.byProducer {
		c.cause = session.CauseGone
	}
	c.finish(c.neg.end, c.neg.endErr)
	return true
}

// finish releases everything held and queues the End.
func (c *Client) finish(why string, err error) {
	if c.finished {
		return
	}
	c.finished = true
	now := c.now()
	c.eng.Flush(now)
	c.endBurst(now)
	c.emit(&Update{Kind: KindBreak, At: now})
	c.eng.EndBecause(now, c.endKind(), c.cause)
	c.snapshot()
	c.emitEnd(why, err)
}

// endKind says what becomes of the prompts still pending at the end: with
// a subscription the producer applies their defaults; without one nothing
// tells it.
func (c *Client) endKind() session.EndKind {
	if c.neg.subID != "" || c.neg.closed {
		return session.EndClosed
	}
	return session.EndLeft
}

// Close closes the subscription, saying why in the End ("The subscription
// is closed."), and waits for the client to end. It is safe to call more
// than once and from any goroutine.
func (c *Client) Close() error { return c.CloseBecause("The subscription is closed.") }

// CloseBecause is Close with the End's words.
func (c *Client) CloseBecause(why string) error {
	c.closeOnce.Do(func() { c.closing <- why })
	<-c.done
	return nil
}

// Done is closed once the client has ended and its End is queued.
func (c *Client) Done() <-chan struct{} { return c.done }

// do runs f on the owner goroutine and waits for it.
func (c *Client) do(ctx context.Context, f func()) error {
	finished := make(chan struct{})
	select {
	case c.reqs <- func() { defer close(finished); f() }:
	case <-c.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	<-finished
	return nil
}

// note is a line of the connection (transport.Note) or of the client's
// own reading goroutine, handled in its place among the frames.
type note struct {
	isStatus bool
	status   transport.Status
	text     string
	problem  bool
	kind     StatusKind // of a line that is neither a status nor a problem
}

func (c *Client) show(n note) {
	if n.isStatus && n.status == transport.StatusConnecting && c.saidConnecting {
		return // said before dialling: the transport's own note says it again
	}
	now := c.now()
	c.tapStatus(n)
	if n.problem {
		if log, ok := producerLog(n.text); ok {
			c.sayQuiet(StatusNotice, log) // information, not a warning
			return
		}
		c.sayHeld()
		c.diagnose(session.Diagnostic{At: now, Code: "transport", Message: n.text})
		return
	}
	if !n.isStatus {
		c.say(n.kind, n.text)
		return
	}
	detail := ""
	if n.text != "" {
		detail = " " + protocol.Line(n.text)
	}
	switch n.status {
	case transport.StatusConnecting:
		c.saidConnecting = true
		c.say(StatusConnecting, "Connecting to "+transport.Shown(c.endpoint)+"."+detail)
		if c.cfg.Credentials != "" {
			c.say(StatusCredentials, c.cfg.Credentials)
		}
	case transport.StatusConnected:
		c.sayHeld()
		c.say(StatusConnected, "Connected to "+transport.Shown(c.endpoint)+"."+detail)
	case transport.StatusReconnecting:
		// No earlier event will come on this connection: release what
		// waited for one, so it is told before the connection's end. The
		// frames before this note are handled already; those after it
		// come from the next connection.
		c.eng.Flush(now)
		c.emit(&Update{Kind: KindBreak, At: now})
		// Said when the next thing happens, unless that is the
		// producer's normal end: then nothing was lost.
		c.sayHeld()
		c.heldNote = &note{text: "Connection lost; reconnecting." + detail}
	case transport.StatusClosed:
		// The End says it, once: keep the words for it.
		c.closedWords = protocol.Line(n.text)
	}
}

// sayHeld tells a "connection lost" line that was held.
func (c *Client) sayHeld() {
	if h := c.heldNote; h != nil {
		c.heldNote = nil
		c.say(StatusReconnecting, h.text)
	}
}

// say queues a status line.
func (c *Client) say(kind StatusKind, text string) {
	if text == "" {
		return
	}
	c.emit(&Update{Kind: KindStatus, At: c.now(), Status: kind, Text: text})
}

// sayQuiet is say for a status that changes nothing the user will hear
// (Update.Quiet).
func (c *Client) sayQuiet(kind StatusKind, text string) {
	if text == "" {
		return
	}
	c.emit(&Update{Kind: KindStatus, At: c.now(), Status: kind, Text: text, Quiet: true})
}

// emit queues a copy of *u, never dropping it. A prompt a delivery
// carries is copied (in *u too), so the reader may keep it while the
// engine goes on. A pointer: an update is some three hundred bytes, and
// each event of a flood is one.
func (c *Client) emit(u *Update) {
	if p := u.Delivery.Prompt; p != nil {
		cp := *p
		u.Delivery.Prompt = &cp
	}
	c.mu.Lock()
	q := c.queue.add()
	*q = *u
	c.queued(q)
}

// emitDelivery is emit of an update delivering d, written in its place in
// the queue rather than built (some 300 bytes) and then copied there: a
// flood's every event is one.
func (c *Client) emitDelivery(d *session.Delivery) {
	var prompt *session.Prompt
	if p := d.Prompt; p != nil {
		cp := *p
		prompt = &cp
	}
	c.mu.Lock()
	u := c.queue.add()
	u.Kind, u.At, u.Delivery = KindDelivery, d.At, *d
	u.Delivery.Prompt = prompt
	c.queued(u)
}

// queued ends emit once u is queued: c.mu is held, and released here.
func (c *Client) queued(u *Update) {
	// ended is set with the End queued, under one lock: a reader that
	// took the End finds it set when it asks again.
	c.ended = c.ended || u.Kind == KindEnd
	first := c.queue.len() == 1
	critical := u.critical()
	u.queuedAs = critNo
	if critical {
		u.queuedAs = critYes
		c.crit = c.queue.len()
	}
	listed := c.listed
	c.mu.Unlock()
	if first {
		signal(c.qsig) // the reader takes all it may, and looks again before it waits
	}
	if listed != nil && (first || critical) {
		listed(critical)
	}
}

func (c *Client) emitEnd(why string, err error) {
	c.emit(&Update{Kind: KindEnd, At: c.now(), Text: why, Err: err})
}

// Next returns the next update, waiting for one; io.EOF once the End was
// returned. Only one goroutine should call Next or NextBatch.
func (c *Client) Next(ctx context.Context) (Update, error) {
	b, err := c.next(ctx, 1)
	if err != nil {
		return Update{}, err
	}
	return b[0], nil
}

// NextBatch waits for at least one update and returns every update waiting
// (at most max, when max > 0), in order: a writer flushes after each
// batch. It returns io.EOF once the End was returned.
func (c *Client) NextBatch(ctx context.Context, max int) ([]Update, error) { return c.next(ctx, max) }

func (c *Client) next(ctx context.Context, max int) ([]Update, error) {
	for {
		c.mu.Lock()
		if out := c.takeUpTo(max); out != nil {
			c.mu.Unlock()
			return out, nil
		}
		ended := c.ended
		c.mu.Unlock()
		if ended {
			return nil, io.EOF
		}
		select {
		case <-c.qsig:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// settled reports whether a prompt in state s can never be answered again.
func settled(s session.PromptState) bool {
	return s != session.PromptPending && s != session.PromptNotOffered
}

// forgetShown notes that prompt n, handed out, has settled; the oldest
// settled prompt beyond maxShownSettled is forgotten, so shown stays
// bounded. c.mu is held.
func (c *Client) forgetShown(n int) {
	if _, ok := c.shown[n]; !ok || slices.Contains(c.shownSettled, n) {
		return
	}
	if len(c.shownSettled) == maxShownSettled {
		delete(c.shown, c.shownSettled[0])
		c.shownSettled = slices.Delete(c.shownSettled, 0, 1)
	}
	c.shownSettled = append(c.shownSettled, n)
}

// offers reports whether d offers its prompt for an answer.
func offers(d session.Delivery) bool {
	return d.Kind == session.KindEvent && d.Prompt.State == session.PromptPending
}

// snapshot copies what other goroutines may read: the pending prompts and
// the terms.
func (c *Client) snapshot() {
	ps := c.eng.Pending()
	snap := make([]session.Prompt, len(ps))
	for i, p := range ps {
		snap[i] = *p
	}
	t := Terms{SubscriptionID: c.neg.subID, Requested: c.neg.requested, Honored: c.neg.honored,
		Acceptance: c.neg.accepted, Pending: c.neg.pending != nil}
	c.mu.Lock()
	c.snap, c.terms = snap, t
	c.mu.Unlock()
}

// Pending returns copies of the prompts waiting for an answer that an
// update taken from Next has offered, oldest first. It is read on the owner
// goroutine, in turn with the frames, so it agrees with the updates taken.
func (c *Client) Pending() []*session.Prompt {
	_ = c.do(context.Background(), c.snapshot) // once ended, the last one (finish's) stands
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*session.Prompt
	for i := range c.snap {
		if _, ok := c.shown[c.snap[i].Number]; ok {
			p := c.snap[i]
			out = append(out, &p)
		}
	}
	return out
}

// Terms returns where the subscription's terms stand, as of the updates
// queued so far.
func (c *Client) Terms() Terms {
	_ = c.do(context.Background(), c.snapshot)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.terms
}

// engineOutput is the client as the engine's session.Output.
type engineOutput Client

func (o *engineOutput) Deliver(d session.Delivery)    { (*Client)(o).onDeliver(&d) }
func (o *engineOutput) Diagnose(d session.Diagnostic) { (*Client)(o).diagnose(d) }

// onDeliver takes a delivery from the engine: the negotiated terms filter
// events.
func (c *Client) onDeliver(d *session.Delivery) {
	if c.admit(d) {
		c.deliver(d)
	}
}

// deliver queues d and the prompts the gate may answer.
func (c *Client) deliver(d *session.Delivery) {
	c.emitDelivery(d)
	c.queueForGate(d)
}

// diagnose queues a diagnostic.
func (c *Client) diagnose(d session.Diagnostic) {
	c.emit(&Update{Kind: KindDiagnostic, At: d.At, Diagnostic: d})
}

// settledAlready reports whether err is a producer refusing a reply because
// its prompt is settled already (409 Conflict: another reply came first).
func settledAlready(err error) bool { return conflict(err) != nil }

// conflict is err's HTTP answer when it is 409 Conflict, the producer
// refusing what was sent over HTTP; else nil.
func conflict(err error) *transport.HTTPError {
	var h *transport.HTTPError
	if errors.As(err, &h) && h.StatusCode == http.StatusConflict {
		return h
	}
	return nil
}

// Sync waits until the client has handled every frame that its reading
// goroutine had taken from the connection when Sync was called, and what
// its clock (Config.Now) says is due, so their updates are queued. A
// replay or a test uses it to step frame by frame.
func (c *Client) Sync(ctx context.Context) error {
	return c.do(ctx, func() {
		c.handleQueued()
		now := c.now()
		c.eng.Tick(now)
		c.answerByGate(now)
		c.snapshot()
	})
}

// Pause stops the owner goroutine until resume is called: frames received
// meanwhile wait (and then are handled as one burst), and so do the other
// methods. A replay stepping through a capture, or a test, uses it.
func (c *Client) Pause(ctx context.Context) (resume func(), err error) {
	paused, release := make(chan struct{}), make(chan struct{})
	go func() { _ = c.do(context.Background(), func() { close(paused); <-release }) }()
	var once sync.Once
	resume = func() { once.Do(func() { close(release) }) }
	select {
	case <-paused:
		return resume, nil
	case <-c.done:
		resume()
		return resume, ErrClosed
	case <-ctx.Done():
		resume()
		return resume, ctx.Err()
	}
}
