package producer

// This file holds the event streams: Server-Sent Events framing, resuming,
// filters, the rate limit, and the chaos of Duplicate and Shuffle.

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// quirkReplay is how many old events a new stream gets in Quirks mode.
const quirkReplay = 1000

// maxHold is how long the shuffle may hold an event back.
const maxHold = 200 * time.Millisecond

// ended reports whether the streams are over: the run has ended and ends
// every stream (EndWhenDone, or a shared replay).
func (p *Producer) ended() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.finished && p.endsStreams()
}

// endsStreams reports whether the end of the run ends every stream.
func (p *Producer) endsStreams() bool {
	return p.opts.EndWhenDone || p.opts.Replay != nil || p.opts.Live != nil
}

// snapshot is what a stream learns from the producer at one moment.
type snapshot struct {
	recs    []record
	next    uint64        // index of the event after recs
	changed chan struct{} // closed at the next change
	idle    bool          // every playing scenario waits on a prompt, or none plays
	over    bool          // nothing more will come: the stream ends once it has sent recs
	terms   terms
	closed  bool // the subscription is gone
}

// since returns the events from index from on of the stream's own log, or
// of the run's history when own is nil.
func (p *Producer) since(from uint64, sub *subscription, own *eventLog) snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := snapshot{
		changed: p.changed,
		idle:    p.finished || p.active > 0 && p.blocked == p.active,
		over:    p.finished && p.endsStreams(),
		terms:   p.anonymousTerms(),
	}
	if own != nil {
		s.idle, s.over = own.ended, own.ended
		s.recs, s.next = own.from(from)
	} else {
		s.recs, s.next = p.hist.from(from)
	}
	if sub != nil {
		s.terms = sub.terms
		s.closed = p.subs[sub.id] != sub
	}
	return s
}

// defaultInclude is the event filter of a subscription that asks for none:
// the core types, or, for a replay, whatever was recorded.
func (p *Producer) defaultInclude() []string {
	if p.opts.Replay != nil || p.opts.Live != nil {
		return []string{"*"}
	}
	return []string{"aaep:agent.*"}
}

// anonymousTerms are the terms of a stream of the deployed layout, which
// has no handshake: every event, prompts included, since such a stream may
// answer on the deployed reply endpoint. A replay's has no rate limit: it
// keeps to the pace of its recording (and --speed), and no subscriber
// asked for one.
func (p *Producer) anonymousTerms() terms {
	rate := p.rateCap()
	if p.opts.Replay != nil {
		rate = 0
	}
	return terms{rate: rate, include: p.defaultInclude(), confirm: true, clarify: true}
}

// startIndex is where a new stream begins in the run's history: after the
// Last-Event-ID when the history holds it, else at the oldest event kept
// (the last quirkReplay in Quirks mode, where events carry no id to resume
// from). A stream of a shared replay, or a new one with JoinLive, begins
// with what is sent from now on (see waiting). The first stream of a live
// agent, its place fixed, lets the agent begin (Live.Watched).
func (p *Producer) startIndex(lastID string) uint64 {
	i := p.startAt(lastID)
	if l := p.opts.Live; l != nil && l.Watched != nil {
		p.watched.Do(l.Watched)
	}
	return i
}

// startAt is startIndex's place in the history.
func (p *Producer) startAt(lastID string) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	end := p.hist.end()
	switch {
	case p.opts.Replay != nil, p.opts.JoinLive && lastID == "":
		return end
	case p.opts.Quirks:
		return max(p.hist.base, end-min(end, quirkReplay))
	}
	if lastID != "" {
		if i, ok := p.hist.after(lastID); ok {
			return i
		}
		p.opts.Logf("producer: Last-Event-ID %s is not in the history; resending all of it", lastID)
	}
	return p.hist.base
}

// waiting returns, for a stream that begins at cursor, the prompts sent
// before it that still wait for a reply (JoinLive).
func (p *Producer) waiting(cursor uint64) []record {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.opts.JoinLive || p.opts.Replay != nil {
		return nil
	}
	var recs []record
	for _, rec := range p.hist.recs[:cursor-min(cursor, p.hist.base)] {
		if pr := p.prompts[rec.token]; rec.token != "" && pr != nil && pr.outcome.Resolution == 0 {
			recs = append(recs, rec)
		}
	}
	return recs
}

// serveStream writes events to one SSE stream until the client leaves, the
// producer closes, the subscription (if any) closes, or — with EndWhenDone —
// the run ends.
func (p *Producer) serveStream(w http.ResponseWriter, r *http.Request, sub *subscription) {
	if p.ended() {
		w.WriteHeader(http.StatusNoContent) // do not reconnect
		return
	}
	p.mu.Lock()
	p.streams++
	seed := p.streams
	if sub != nil {
		sub.streams++
		sub.lastUsed = time.Now()
	} else {
		p.anonymous++
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if sub != nil {
			sub.streams--
			sub.lastUsed = time.Now()
			return
		}
		p.anonymous--
		p.unanswerableLocked()
	}()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel() // stops the stream's own playing, if any
	var own *eventLog
	if p.ownPlaying() {
		var more bool
		if own, more = p.playOwn(ctx, r.Header.Get("Last-Event-ID"), sub); !more {
			w.WriteHeader(http.StatusNoContent) // played to the end: do not reconnect
			return
		}
	}

	// Where the stream starts is fixed before the subscriber hears it is
	// connected: whatever is sent once it has heard so reaches it.
	var cursor uint64
	var first []record // JoinLive: the prompts waiting before the stream began
	if own == nil {
		cursor = p.startIndex(r.Header.Get("Last-Event-ID"))
		first = p.waiting(cursor)
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush() // the headers at once: a live agent may say nothing for long
	p.begin()

	out := p.newStreamOut(seed)
	out.bare = p.opts.Quirks
	// Browser subscribers of the deployed layout listen with
	// EventSource.onmessage, which sees only events without a name: the
	// legacy /events names them only when asked (?named=1).
	out.unnamed = sub == nil && r.URL.Query().Get("named") != "1"
	// Comments keep an idle stream alive for subscribers that drop a
	// silent one: deployed producers' heartbeats in Quirks mode.
	every, comment := p.opts.KeepAlive, ": keep-alive\n\n"
	if p.opts.Quirks {
		out.buf.WriteString(": connected\n\n")
		every, comment = p.opts.Heartbeat, ": heartbeat\n\n"
	}
	t := time.NewTicker(every)
	defer t.Stop()
	out.comment = comment
	out.first = first
	if p.feed(ctx, sub, own, out, cursor, t.C, func() error {
		if _, err := w.Write(out.buf.Bytes()); err != nil {
			return err
		}
		out.buf.Reset()
		return rc.Flush()
	}) {
		p.sentAll(own)
	}
}

// newStreamOut returns the output of the stream numbered seed.
func (p *Producer) newStreamOut(seed uint64) *streamOut {
	return &streamOut{
		rng:    rand.New(rand.NewPCG(p.opts.Seed, seed)),
		dup:    p.opts.Duplicate,
		window: p.opts.Shuffle,
	}
}

// feed writes the events from index cursor on (of the stream's own log, or
// of the run's history when own is nil) into out, calling flush whenever
// out holds some, until ctx ends, the producer closes, the subscription
// (if any) closes, flush fails, or nothing more will come (the own log
// ended; the run ended, with EndWhenDone or a shared replay). It reports
// whether it stopped because nothing more will come.
// heartbeat, if not nil, adds out.comment to an SSE stream at each tick.
func (p *Producer) feed(ctx context.Context, sub *subscription, own *eventLog, out *streamOut, cursor uint64, heartbeat <-chan time.Time, flush func() error) bool {
	var closed <-chan struct{}
	if sub != nil {
		closed = sub.closed
	}
	for {
		snap := p.since(cursor, sub, own)
		cursor = snap.next
		if snap.closed {
			return false
		}
		out.bucket.setRate(snap.terms.rate)
		now := time.Now()
		recs := snap.recs
		if out.first != nil { // JoinLive: the prompts waiting before the stream began
			recs, out.first = append(out.first, recs...), nil
		}
		for _, rec := range recs {
			if snap.terms.sends(rec) {
				out.add(rec, now)
			}
		}
		if snap.idle || len(out.held) > 0 && now.Sub(out.heldSince) >= maxHold {
			out.flushHeld(now)
		}
		out.drain(now)
		if out.buf.Len() > 0 || len(out.msgs) > 0 {
			if err := flush(); err != nil {
				return false
			}
		}
		if snap.over && len(out.held) == 0 && len(out.queue) == 0 {
			return true
		}

		var wake <-chan time.Time
		var timer *time.Timer
		if d, ok := out.nextWake(now); ok {
			timer = time.NewTimer(d)
			wake = timer.C
		}
		select {
		case <-snap.changed:
		case <-wake:
		case <-heartbeat:
			out.buf.WriteString(out.comment)
		case <-closed:
			return false
		case <-ctx.Done():
			return false
		case <-p.ctx.Done():
			return false
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// sends reports whether a stream under t is sent rec: a prompt only when
// the subscription can answer it, any other critical event always, the
// rest as the filters say.
func (t terms) sends(rec record) bool {
	if !t.answers(rec.typ) {
		return false
	}
	return rec.critical || t.allows(rec.typ)
}

// answers reports whether a subscription under t can answer an event of
// type typ: true for every type that is not a prompt.
func (t terms) answers(typ string) bool {
	switch typ {
	case protocol.TypeAwaitingConfirmation:
		return t.confirm
	case protocol.TypeAwaitingClarify:
		return t.clarify
	}
	return true
}

// allows reports whether the filters let a non-critical event of type typ
// through: it matches an include pattern and no exclude pattern.
func (t terms) allows(typ string) bool {
	match := func(pat string) bool {
		if prefix, ok := strings.CutSuffix(pat, "*"); ok {
			return strings.HasPrefix(typ, prefix)
		}
		return typ == pat
	}
	return slices.ContainsFunc(t.include, match) && !slices.ContainsFunc(t.exclude, match)
}

// streamOut orders one stream's events: critical ones are written at once;
// the others may wait in the shuffle window (held), then for the rate limit
// (queue).
type streamOut struct {
	bare      bool     // Quirks framing: data lines only
	comment   string   // the keep-alive comment of an SSE stream
	first     []record // sent before the stream's first events (waiting)
	unnamed   bool     // no "event:" line (ids are kept)
	framed    bool     // a message binding: events go to msgs, not buf
	msgs      [][]byte
	rng       *rand.Rand
	dup       float64
	window    int
	held      []pending
	heldSince time.Time
	queue     []pending
	bucket    bucket
	buf       bytes.Buffer // framed events ready to write
}

type pending struct {
	rec  record
	copy bool // a duplicate; never duplicated again
}

func (o *streamOut) add(rec record, now time.Time) {
	if rec.critical {
		o.write(rec)
		if o.duplicate() {
			o.write(rec)
		}
		return
	}
	if o.window <= 1 {
		o.enqueue(pending{rec: rec})
		o.drain(now)
		return
	}
	if len(o.held) == 0 {
		o.heldSince = now
	}
	o.held = append(o.held, pending{rec: rec})
	for len(o.held) >= o.window {
		o.release(o.rng.IntN(len(o.held)))
	}
	o.drain(now)
}

// release moves held[i] to the queue; a duplicate of it may join the window.
func (o *streamOut) release(i int) {
	p := o.held[i]
	o.held = slices.Delete(o.held, i, i+1)
	o.queue = append(o.queue, p)
	if !p.copy && o.duplicate() {
		o.held = append(o.held, pending{rec: p.rec, copy: true})
	}
}

// flushHeld releases every held event in random order.
func (o *streamOut) flushHeld(now time.Time) {
	for len(o.held) > 0 {
		o.release(o.rng.IntN(len(o.held)))
	}
	o.drain(now)
}

func (o *streamOut) enqueue(p pending) {
	o.queue = append(o.queue, p)
	if !p.copy && o.duplicate() {
		o.queue = append(o.queue, pending{rec: p.rec, copy: true})
	}
}

// drain writes queued events as far as the rate limit allows.
func (o *streamOut) drain(now time.Time) {
	n := 0
	for n < len(o.queue) && o.bucket.take(now) {
		o.write(o.queue[n].rec)
		n++
	}
	o.queue = slices.Delete(o.queue, 0, n)
}

// nextWake says when held or queued events may go out.
func (o *streamOut) nextWake(now time.Time) (time.Duration, bool) {
	var d time.Duration
	ok := false
	if len(o.held) > 0 {
		d, ok = max(o.heldSince.Add(maxHold).Sub(now), time.Millisecond), true
	}
	if len(o.queue) > 0 {
		q := o.bucket.wait(now)
		if !ok || q < d {
			d, ok = q, true
		}
	}
	return d, ok
}

func (o *streamOut) duplicate() bool { return o.dup > 0 && o.rng.Float64() < o.dup }

// write frames one event, or queues it for a message binding.
func (o *streamOut) write(rec record) {
	if o.framed {
		o.msgs = append(o.msgs, rec.data)
		return
	}
	if !o.bare {
		if !o.unnamed {
			o.buf.WriteString("event: aaep.event\n")
		}
		o.buf.WriteString("id: ")
		o.buf.WriteString(rec.id)
		o.buf.WriteByte('\n')
	}
	o.buf.WriteString("data: ")
	o.buf.Write(rec.data)
	o.buf.WriteString("\n\n")
}

// bucket is a token bucket: rate tokens a second, holding at most one
// second's worth; a rate of 0 is no limit.
type bucket struct {
	rate   int
	tokens float64
	last   time.Time
}

func (b *bucket) setRate(rate int) {
	if b.rate != rate {
		b.rate, b.tokens = rate, float64(rate)
	}
}

func (b *bucket) refill(now time.Time) {
	if !b.last.IsZero() {
		b.tokens = min(float64(b.rate), b.tokens+now.Sub(b.last).Seconds()*float64(b.rate))
	}
	b.last = now
}

func (b *bucket) take(now time.Time) bool {
	if b.rate <= 0 {
		return true
	}
	b.refill(now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// wait is how long until a token is available.
func (b *bucket) wait(now time.Time) time.Duration {
	if b.rate <= 0 {
		return 0
	}
	b.refill(now)
	if b.tokens >= 1 {
		return 0
	}
	return max(time.Duration((1-b.tokens)/float64(b.rate)*float64(time.Second)), time.Millisecond)
}
