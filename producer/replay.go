package producer

// This file holds the replay mode: a producer that serves the events of a
// recorded session (a capture) instead of playing scenarios, with the same
// handshake, terms, HTTP layouts and message bindings (aaep-replay serve).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/protocol"
)

// Replay is a recorded session for a Producer to serve in place of
// scenarios (Options.Replay). Replies to its prompts are received and
// reported (Options.OnMessage) but change nothing: the session goes on as
// recorded. A subscription is still sent only what its terms allow, and
// no prompt it cannot answer.
type Replay struct {
	// Records are the records of the capture. Only the received events are
	// served: sent messages, transport notes, frames that were not JSON and
	// the recorded handshake are left out.
	Records []capture.Record
	// Speed divides the recorded pauses: 1 is as recorded, 2 twice as fast;
	// 0 sends without pauses.
	Speed float64
	// IdleLimit caps every pause; zero means no cap.
	IdleLimit time.Duration
	// Loop plays the capture again and again. From the second round on,
	// event IDs, session IDs and reply tokens get a suffix naming the round,
	// so every round is a set of new sessions with new events.
	Loop bool
	// Shared plays the capture once for everyone, from the first stream or
	// Producer.Run on, as a live producer does: a subscriber gets what is
	// sent from the moment it joins. Without it, each stream plays the
	// capture from its start (or its Last-Event-ID) for itself.
	Shared bool
	// KeepTimestamps sends the recorded timestamps. By default each event's
	// timestamp is the time it is sent, so subscribers treat the session as
	// live (prompts are not already expired).
	KeepTimestamps bool
	// Linger keeps each stream open this long after its last event, so
	// that replies to the last prompts still find it open.
	Linger time.Duration
	// OnDone, if not nil, is called each time a stream (when Shared: the
	// playing) has sent the whole capture; never with Loop. It is called
	// once the stream has written its last event, on a goroutine of its
	// own, so it may Close the producer.
	OnDone func()

	// after, when not nil, is the clock of the pauses (tests); nil: real
	// timers.
	after func(time.Duration) <-chan time.Time

	msgs  [][]byte  // the events served, one line each
	meta  []recMeta // what serving each needs to know of it (replay_wire.go)
	times []float64 // when each was received; meaningful when timed[i]
	timed []bool    // whether times[i] is known
	agent protocol.ProducerInfo
}

// Len returns how many events each round of r sends.
func (r *Replay) Len() int { return len(r.msgs) }

// prepare keeps the events of r.Records and finds the recorded producer.
// Each event is checked and read once, here: serving it later costs no
// decoding.
func (r *Replay) prepare() {
	r.msgs, r.meta, r.times, r.timed = nil, nil, nil, nil
	r.agent = protocol.ProducerInfo{AgentID: "aaep-replay"}
	found := false
	for _, rec := range r.Records {
		if rec.Dir != capture.In || rec.Note || rec.IsText() || strings.HasPrefix(protocol.PeekType(rec.Msg), "subscription.") {
			continue
		}
		var b bytes.Buffer
		if json.Compact(&b, rec.Msg) != nil {
			continue
		}
		m := readMeta(b.Bytes())
		r.msgs, r.meta = append(r.msgs, b.Bytes()), append(r.meta, m)
		r.times, r.timed = append(r.times, rec.T), append(r.timed, rec.HasT)
		if !found && m.agent.AgentID != "" {
			r.agent, found = m.agent, true
		}
	}
}

// replayNote tells subscribers, in subscription.accepted, what they talk to.
const replayNote = "This is a recorded session replayed by aaep-replay; replies are received but change nothing."

// ownPlaying reports whether each stream plays the replay for itself.
func (p *Producer) ownPlaying() bool {
	return p.opts.Replay != nil && !p.opts.Replay.Shared
}

// playOwn starts a stream's own playing of the replay, from the event
// after lastID when the capture holds it, and returns the log the stream
// reads. It returns false when there is nothing left to play: the
// subscription's stream was played to the end before, or lastID is the
// last event. The playing stops when ctx ends.
func (p *Producer) playOwn(ctx context.Context, lastID string, sub *subscription) (*eventLog, bool) {
	r := p.opts.Replay
	start, resumed := r.resumeAt(lastID)
	p.mu.Lock()
	played := sub != nil && sub.played
	p.mu.Unlock()
	if played || resumed && start >= len(r.msgs) && !r.Loop {
		return nil, false
	}
	lg := &eventLog{own: true}
	go func() {
		finished := r.play(ctx, start, p.opts.Now, func(recs []record) error {
			for {
				p.mu.Lock()
				room, full := lg.full()
				if !full {
					for _, rec := range recs {
						lg.add(rec)
					}
					p.broadcastLocked()
					p.mu.Unlock()
					return nil
				}
				p.mu.Unlock()
				select {
				case <-room:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		})
		p.mu.Lock()
		lg.ended, lg.complete = true, finished
		if finished && sub != nil {
			sub.played = true
		}
		p.broadcastLocked()
		p.mu.Unlock()
	}()
	return lg, true
}

// sentAll is called by a stream whose feed of own has returned true: every
// event of own is written. When own's playing went to the end, the stream
// has sent the whole capture, and OnDone is told — only now, so a server
// that stops from OnDone cannot cut a stream short. OnDone runs on a
// goroutine of its own: it may Close the producer, which waits for this
// stream's connection.
func (p *Producer) sentAll(own *eventLog) {
	p.mu.Lock()
	complete := own != nil && own.complete
	p.mu.Unlock()
	if r := p.opts.Replay; complete && r.OnDone != nil {
		go r.OnDone()
	}
}

// runReplay plays a Shared replay into the history every stream reads.
func (p *Producer) runReplay() {
	r := p.opts.Replay
	finished := r.play(p.ctx, 0, p.opts.Now, func(recs []record) error {
		p.publish(recs...)
		return nil
	})
	if finished && r.OnDone != nil {
		r.OnDone()
	}
}

// resumeAt returns the index a stream resuming after the event last starts
// at, and whether last names an event of the capture.
func (r *Replay) resumeAt(last string) (int, bool) {
	start, found := 0, false
	if last == "" {
		return 0, false
	}
	for i, m := range r.meta {
		if m.rec.id == last {
			start, found = i+1, true
		}
	}
	return start, found
}

// replayBatch is how many events without a pause between them play hands
// the streams at once: a stream behind takes them in one write.
const replayBatch = 256

// play sends the events from index start through emit, paced, once or
// (Loop) until ctx is done, then waits Linger. Events without a pause
// between them are emitted together, up to replayBatch at a time. It
// reports whether the capture was played to the end.
func (r *Replay) play(ctx context.Context, start int, now func() time.Time, emit func([]record) error) bool {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var batch []record
	flush := func() bool {
		if len(batch) == 0 {
			return ctx.Err() == nil
		}
		err := emit(batch)
		batch = batch[:0]
		return err == nil
	}
	wait := func(d time.Duration) bool {
		if !flush() {
			return false
		}
		if d <= 0 {
			return ctx.Err() == nil
		}
		c := timer.C
		if r.after != nil {
			c = r.after(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	st := &stamper{now: now}
	for round := 1; ; round++ {
		for i := start; i < len(r.msgs); i++ {
			if i > start {
				if d := r.pause(i); d > 0 && !wait(d) {
					return false
				}
			}
			if ctx.Err() != nil {
				return false
			}
			batch = append(batch, r.meta[i].send(r.msgs[i], round, r.KeepTimestamps, st))
			if len(batch) == replayBatch && !flush() {
				return false
			}
		}
		if !r.Loop || len(r.msgs) == 0 {
			return wait(r.Linger)
		}
		start = 0
		if !wait(r.roundGap()) {
			return false
		}
	}
}

// roundGap is the pause between two rounds of a loop: a second at speed 1.
func (r *Replay) roundGap() time.Duration {
	if r.Speed <= 0 {
		return 0
	}
	d := time.Duration(float64(time.Second) / r.Speed)
	if r.IdleLimit > 0 {
		d = min(d, r.IdleLimit)
	}
	return d
}

// pause is how long to wait before the event i, after the one before it.
func (r *Replay) pause(i int) time.Duration {
	prev, next := r.times[i-1], r.times[i]
	if r.Speed <= 0 || !r.timed[i-1] || !r.timed[i] || next <= prev {
		return 0
	}
	d := time.Duration((next - prev) / r.Speed * float64(time.Second))
	if r.IdleLimit > 0 {
		d = min(d, r.IdleLimit)
	}
	return d
}

// roundID is id made unique to round: "evt_abc" becomes "evt_abcr2", cut
// so that what follows the prefix stays within 64 characters.
func roundID(id string, round int) string {
	suffix := fmt.Sprintf("r%d", round)
	prefix, rest, ok := strings.Cut(id, "_")
	if !ok {
		prefix, rest = "", id
	} else {
		prefix += "_"
	}
	if n := 64 - len(suffix); len(rest) > n {
		rest = rest[:n]
	}
	return prefix + rest + suffix
}
