package session

import (
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// This file drops events a producer sends again after they were announced,
// however long ago: a producer that ignores Last-Event-ID may resend more
// history than the dedupe window of event IDs remembers. What was announced
// is known by sequence number: everything below the session's next expected
// number, except the numbers in its lost ranges.

// maxLost bounds the lost ranges remembered per session. When a session has
// more, the lowest is forgotten: an event of it arriving later still is
// dropped, never announced twice.
const maxLost = 16

// seqRange is the sequence numbers first to last.
type seqRange struct{ first, last int64 }

// resent counts a session's events dropped as sent again, until the burst
// they came in ends and one line tells them.
type resent struct {
	n           int
	first, last int64     // lowest and highest number dropped
	eventID     string    // the event dropped, when n is 1
	agent       string    // its producer
	at          time.Time // when the latest was dropped
	index       int       // in the engine's resending list
}

// announced reports whether number seq of s was already announced.
func (s *sessionState) announced(seq int64) bool {
	if !s.known || seq >= s.expect {
		return false
	}
	for _, r := range s.lost {
		if r.first <= seq && seq <= r.last {
			return false
		}
	}
	return true
}

// lose remembers that numbers first to last of s were given up.
func (s *sessionState) lose(first, last int64) {
	if len(s.lost) == maxLost {
		s.lost = append(s.lost[:0], s.lost[1:]...)
	}
	s.lost = append(s.lost, seqRange{first, last})
}

// found takes seq, arriving late, out of s's lost ranges.
func (s *sessionState) found(seq int64) {
	for i, r := range s.lost {
		switch {
		case seq < r.first || seq > r.last:
			continue
		case r.first == r.last:
			s.lost = append(s.lost[:i], s.lost[i+1:]...)
		case seq == r.first:
			s.lost[i].first++
		case seq == r.last:
			s.lost[i].last--
		default:
			s.lost[i].last = seq - 1
			s.lost = append(s.lost[:i+1], s.lost[i:]...)
			s.lost[i+1] = seqRange{seq + 1, r.last}
			if len(s.lost) > maxLost {
				s.lost = append(s.lost[:0], s.lost[1:]...)
			}
		}
		return
	}
}

// sentAgain reports whether ev, whose number was already announced, is taken
// for a copy sent again: unless the dedupe window still holds every event ID
// ever seen and not ev's, whatever the window remembers (a producer may
// resend more history than it holds).
//
// A prompt whose reply token no recent prompt carried is never taken for a
// copy: it is told, late, rather than hidden while its agent waits for an
// answer the user was never asked for. A prompt whose token a recent one
// carried is a copy, whatever its event ID: a producer replaying its
// history may give each copy an ID of its own, and each is counted in the
// burst, not told as a prompt settled already.
func (e *Engine) sentAgain(ev *protocol.Event) bool {
	if ev.ReplyToken != "" {
		if !e.tokens.has(e.hash.sum("", ev.ReplyToken)) {
			return false
		}
		if isPrompt(ev) {
			return true
		}
	}
	if ev.EventID == "" {
		return true
	}
	k := e.hash.sum(ev.Producer.AgentID, ev.EventID)
	if e.cfg.Dedupe != nil {
		has, full := e.cfg.Dedupe.has(k)
		return has || full
	}
	return e.seen.full() || e.seen.has(k)
}

// resend drops ev, already announced in s, and counts it in s's burst.
func (e *Engine) resend(s *sessionState, ev *protocol.Event, now time.Time) {
	r := s.resent
	if r == nil {
		r = &resent{first: ev.Seq, last: ev.Seq, eventID: ev.EventID, agent: ev.Producer.AgentID, index: len(e.resending)}
		s.resent = r
		e.resending = append(e.resending, s)
	}
	r.n++
	r.first, r.last = min(r.first, ev.Seq), max(r.last, ev.Seq)
	r.at = now
	e.resentAt = now
}

// endResend tells, in one line, the events of s dropped in the burst that
// ends now.
func (e *Engine) endResend(s *sessionState, now time.Time) {
	r := s.resent
	if r == nil {
		return
	}
	s.resent = nil
	last := len(e.resending) - 1 // the last takes its place: O(1) however many
	if moved := e.resending[last]; moved != s {
		e.resending[r.index] = moved
		moved.resent.index = r.index
	}
	e.resending[last] = nil
	e.resending = e.resending[:last]
	if r.n == 1 {
		e.diagnose(now, "duplicate", s.id, r.eventID,
			"Dropped a second copy of event "+clean(r.eventID)+" from "+clean(r.agent)+".")
		return
	}
	e.diagnose(now, "duplicate", s.id, "", fmt.Sprintf(
		"Session %s: dropped %d events already announced (numbers %d to %d); the producer sent them again.",
		clean(s.id), r.n, r.first, r.last))
}

// resentDue is when the bursts of resent events are told if nothing else
// ends them: once no event was resent for the reorder wait. It is zero when
// no burst is being counted.
func (e *Engine) resentDue() time.Time {
	if len(e.resending) == 0 {
		return time.Time{}
	}
	return e.resentAt.Add(e.cfg.ReorderWait)
}

// endResends ends every burst being counted.
func (e *Engine) endResends(now time.Time) {
	for len(e.resending) > 0 {
		e.endResend(e.resending[0], now)
	}
}
