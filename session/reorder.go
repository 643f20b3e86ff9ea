package session

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// reorder is the part of a session's state that holds events back. It is
// allocated the first time the session holds one.
type reorder struct {
	q        []held    // by sequence number; equal numbers in arrival order
	deadline time.Time // when the longest-waiting entry's wait runs out
	heap     int       // index in the engine's deadline heap; -1 when absent
}

// held is one entry of a session's reorder queue: an event waiting for
// earlier ones, or the number of a critical event already delivered ahead of
// its turn (ev nil), so it is neither reported missing nor delivered twice.
type held struct {
	seq int64
	at  time.Time // when it arrived
	ev  *protocol.Event
}

// sequence delivers or holds ev, which has a sequence number, by its
// session's expected order.
//
// A critical event is never held back, and it never overtakes what its
// session holds only for order: the held events numbered before it are
// released first, giving up the numbers still missing among them. Events
// numbered before it that arrive after it are reported late.
func (e *Engine) sequence(s *sessionState, ev *protocol.Event, now time.Time) {
	if !s.known && (ev.Seq == 0 || ev.Type == protocol.TypeSessionStarted) {
		s.known, s.expect = true, ev.Seq
	}
	critical := ev.IsCritical()
	if critical {
		e.releaseBefore(s, ev.Seq, now)
	}
	switch {
	case s.known && ev.Seq == s.expect:
		if ev.Seq < s.ahead {
			e.late(s, ev, now) // a critical event numbered after it went first
		}
		e.deliver(s, ev, now)
		s.expect++
		e.release(s, math.MinInt64, now)
	case s.known && ev.Seq < s.expect:
		// Not announced before (Handle drops copies sent again): a number
		// given up, one from before a join, or a number used twice.
		s.found(ev.Seq)
		e.late(s, ev, now)
		e.deliver(s, ev, now)
	case critical:
		// Delivered ahead of its turn, its number kept in the queue.
		if ev.Seq < s.ahead {
			e.late(s, ev, now)
		}
		e.deliver(s, ev, now)
		s.ahead = max(s.ahead, ev.Seq)
		e.hold(s, held{seq: ev.Seq, at: now}, now)
	default:
		e.hold(s, held{seq: ev.Seq, at: now, ev: ev}, now)
	}
}

// releaseBefore releases the events s holds that are numbered before seq,
// giving up the numbers missing among them (and settling where a session
// joined mid-way starts).
func (e *Engine) releaseBefore(s *sessionState, seq int64, now time.Time) {
	if s.r == nil || len(s.r.q) == 0 || s.r.q[0].seq >= seq {
		return
	}
	if !s.known {
		e.join(s, now)
	}
	e.release(s, seq-1, now)
}

// hold queues h. When the session holds more than the window allows, its
// lowest entries are released, their gaps given up; when all sessions
// together hold more than the engine allows, the longest-waiting session's
// lowest entries are.
func (e *Engine) hold(s *sessionState, h held, now time.Time) {
	if s.r == nil {
		s.r = &reorder{heap: -1}
	}
	q := s.r.q
	i := sort.Search(len(q), func(i int) bool { return q[i].seq > h.seq })
	q = append(q, held{})
	copy(q[i+1:], q[i:])
	q[i] = h
	s.r.q = q
	e.held++
	for len(s.r.q) > e.cfg.ReorderWindow {
		e.releaseLowest(s, now)
	}
	e.reschedule(s)
	for e.held > e.maxHeld {
		e.releaseLowest(e.waiting[0], now)
	}
}

// releaseLowest gives up waiting for what is missing before s's lowest held
// entry, and releases it and what follows on.
func (e *Engine) releaseLowest(s *sessionState, now time.Time) {
	if !s.known {
		e.join(s, now)
	}
	e.release(s, s.r.q[0].seq, now)
}

// release delivers, in order, the queued entries numbered up to upto, then
// those that follow on without a gap. Missing numbers below upto are given
// up and reported.
func (e *Engine) release(s *sessionState, upto int64, now time.Time) {
	if s.r == nil {
		return
	}
	n := 0
	for ; n < len(s.r.q); n++ {
		h := s.r.q[n]
		if h.seq > s.expect && h.seq > upto {
			break
		}
		if h.seq > s.expect {
			e.gap(s, s.expect, h.seq-1, now)
			s.expect = h.seq
		}
		if h.ev != nil {
			if h.seq < s.expect || h.seq < s.ahead {
				// A second event with an already used number, or one a
				// critical event numbered after it went ahead of.
				e.late(s, h.ev, now)
			}
			e.deliver(s, h.ev, now)
		}
		if h.seq == s.expect {
			s.expect++
		}
	}
	if n == 0 {
		return
	}
	q := s.r.q
	m := copy(q, q[n:])
	clear(q[m:])
	s.r.q = q[:m]
	e.held -= n
	e.reschedule(s)
}

// expire releases what has waited long enough in s: every entry whose wait
// ran out, and everything queued before it.
func (e *Engine) expire(s *sessionState, now time.Time) {
	if !s.known {
		e.join(s, now)
	}
	wait := e.cfg.ReorderWait
	upto := int64(math.MinInt64)
	for _, h := range s.r.q {
		if !now.Before(h.at.Add(wait)) {
			upto = h.seq
		}
	}
	e.release(s, upto, now)
	e.reschedule(s)
}

// flushSession releases everything s holds.
func (e *Engine) flushSession(s *sessionState, now time.Time) {
	if !s.known {
		e.join(s, now)
	}
	e.release(s, math.MaxInt64, now)
	e.reschedule(s)
}

// join settles where a session first seen mid-way starts: at the lowest
// number received while we waited.
func (e *Engine) join(s *sessionState, now time.Time) {
	s.known, s.joined = true, true
	s.expect = s.r.q[0].seq
	if s.expect > 0 {
		s.lose(0, s.expect-1)
	}
	if s.expect > 0 && !s.forgotten && !e.filtered {
		e.diagnose(now, "joined", s.id, "", fmt.Sprintf(
			"Joined session %s at event %d; its earlier events were not received.", clean(s.id), s.expect))
	}
}

// gap reports that events first to last of s will not be waited for any more.
func (e *Engine) gap(s *sessionState, first, last int64, now time.Time) {
	s.lose(first, last)
	if e.filtered {
		return // most likely left out by the filters, with their numbers (Filtered)
	}
	var msg string
	if first == last {
		msg = fmt.Sprintf("Session %s: event %d never arrived.", clean(s.id), first)
	} else {
		msg = fmt.Sprintf("Session %s: events %d to %d never arrived.", clean(s.id), first, last)
	}
	e.diagnose(now, "gap", s.id, "", msg)
}

// late reports that ev arrives after events numbered above it.
func (e *Engine) late(s *sessionState, ev *protocol.Event, now time.Time) {
	e.diagnose(now, "late", s.id, ev.EventID, fmt.Sprintf(
		"Session %s: event %d arrived late, after later events; it is announced out of order.", clean(s.id), ev.Seq))
}

// reschedule recomputes s's deadline and its place in the deadline heap.
func (e *Engine) reschedule(s *sessionState) {
	r := s.r
	if r == nil {
		return
	}
	if len(r.q) == 0 {
		r.deadline = time.Time{}
		e.waiting.remove(s)
		return
	}
	oldest := r.q[0].at
	for _, h := range r.q[1:] {
		if h.at.Before(oldest) {
			oldest = h.at
		}
	}
	r.deadline = oldest.Add(e.cfg.ReorderWait)
	e.waiting.set(s)
}

// deadlineHeap is a min-heap of the sessions holding events, by deadline.
type deadlineHeap []*sessionState

// set adds s or moves it to match its new deadline.
func (h *deadlineHeap) set(s *sessionState) {
	if s.r.heap < 0 {
		s.r.heap = len(*h)
		*h = append(*h, s)
		h.up(s.r.heap)
		return
	}
	if !h.down(s.r.heap) {
		h.up(s.r.heap)
	}
}

// remove takes s out of the heap when it is there.
func (h *deadlineHeap) remove(s *sessionState) {
	i := s.r.heap
	if i < 0 {
		return
	}
	last := len(*h) - 1
	if i != last {
		h.swap(i, last)
	}
	(*h)[last] = nil
	*h = (*h)[:last]
	s.r.heap = -1
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
}

func (h deadlineHeap) less(i, j int) bool { return h[i].r.deadline.Before(h[j].r.deadline) }

func (h deadlineHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].r.heap = i
	h[j].r.heap = j
}

func (h deadlineHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

// down moves element i down; it reports whether it moved.
func (h deadlineHeap) down(i0 int) bool {
	i := i0
	for {
		j := 2*i + 1
		if j >= len(h) {
			break
		}
		if r := j + 1; r < len(h) && h.less(r, j) {
			j = r
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}
