package session

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// sessionKey names a session: its agent_id and session_id. Two agents may
// choose the same session_id; their sessions are still two (nothing one of
// them sends settles, ends or reorders the other's).
type sessionKey struct{ agent, id string }

// keyOf is the session ev belongs to.
func keyOf(ev *protocol.Event) sessionKey {
	return sessionKey{agent: ev.Producer.AgentID, id: ev.SessionID}
}

// sessionState is what the engine remembers of one session. It is kept small:
// a long run tracks thousands of sessions.
type sessionState struct {
	agent      string        // the producer's agent_id
	id         string        // the session_id
	prev, next *sessionState // in the engine's live or ended list
	// sameID is the next session of another agent with the same
	// session_id (Engine.sessions holds the first); crowded, that the
	// session is in Engine.crowded instead, its session_id's chain being
	// full.
	sameID  *sessionState
	crowded bool
	r       *reorder // nil until the session first holds an event

	expect int64 // next expected sequence number, once known
	maxSeq int64 // highest sequence number delivered; -1 before any
	// resolvedSeq is the highest number of an event delivered that left
	// awaiting_input (resolvesPrompts): a prompt numbered before it that
	// comes late was settled by it. -1 before any.
	resolvedSeq int64
	ahead       int64 // highest number of a critical event delivered ahead of its turn
	endSeq      int64 // number of the terminal event, once ended with one; else 0

	tools []uint64 // keys of tool calls invoked and not yet completed

	lost   []seqRange // numbers below expect never announced: given up, or before a join (resent.go)
	resent *resent    // events dropped as sent again, in the burst being counted

	confirms    []*Prompt       // recent confirmations, for linking tool calls (link.go)
	unconfirmed *protocol.Event // a risky tool call whose confirmation may come next

	known     bool // expect is set
	joined    bool // first seen mid-session: earlier events were never received
	forgotten bool // perhaps evicted once and seen again: its history is lost
	seen      bool // an event was delivered
	started   bool // session.started was delivered
	ended     bool // a terminal event was delivered
	untracked bool // too many tool calls in flight; some were not remembered
}

// sessionList is a doubly linked list of sessions, least recently active
// first.
type sessionList struct {
	head, tail *sessionState
}

func (l *sessionList) pushBack(s *sessionState) {
	s.prev, s.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = s
	} else {
		l.head = s
	}
	l.tail = s
}

func (l *sessionList) remove(s *sessionState) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		l.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		l.tail = s.prev
	}
	s.prev, s.next = nil, nil
}

// list returns the list s belongs in.
func (e *Engine) list(s *sessionState) *sessionList {
	if s.ended {
		return &e.over
	}
	return &e.live
}

// session returns the state of session k, creating it (and forgetting the
// least recently active session when the table is full), and marks it as
// the most recently active.
func (e *Engine) session(k sessionKey, now time.Time) *sessionState {
	if s := e.lookup(k); s != nil {
		if l := e.list(s); l.tail != s {
			l.remove(s)
			l.pushBack(s)
		}
		return s
	}
	s := &sessionState{agent: strings.Clone(k.agent), id: strings.Clone(k.id), maxSeq: -1, resolvedSeq: -1}
	if g, ok := e.gone.get(e.hash.sumAll(k.agent, k.id)); ok {
		s.forgotten, s.seen, s.started, s.ended = true, true, true, g.ended
		s.known, s.expect, s.lost = g.known, g.expect, g.lost
	} else {
		// Once live sessions were forgotten, a session we do not know may
		// be one of them: its history is unknown.
		s.forgotten = e.overflowed
	}
	if e.tracked >= e.cfg.MaxSessions {
		e.evict(now)
	}
	e.track(s)
	e.list(s).pushBack(s)
	return s
}

// lookup returns the state of session k, nil when it is not tracked. The
// table is keyed by session_id alone, one string to hash and compare, and
// the sessions of other agents with the same session_id follow the first
// (sameID): nearly every stream is one agent's. A chain holds at most
// maxSameID sessions; more of one session_id are in a map by agent and
// session_id (crowded), so that a producer giving one session_id to many
// agent_ids costs a look-up in a map, not a walk along them all.
func (e *Engine) lookup(k sessionKey) *sessionState {
	s := e.sessions[k.id]
	for s != nil && s.agent != k.agent {
		s = s.sameID
	}
	if s == nil && len(e.crowded) > 0 {
		s = e.crowded[k]
	}
	return s
}

// maxSameID is the most sessions of one session_id in a chain.
const maxSameID = 4

// track puts s, which is not tracked, in the table.
func (e *Engine) track(s *sessionState) {
	n := 0
	for p := e.sessions[s.id]; p != nil; p = p.sameID {
		n++
	}
	if n == maxSameID {
		if e.crowded == nil {
			e.crowded = make(map[sessionKey]*sessionState)
		}
		e.crowded[sessionKey{s.agent, s.id}] = s
		s.crowded = true
	} else {
		s.sameID = e.sessions[s.id]
		e.sessions[s.id] = s
	}
	e.tracked++
}

// untrack takes s, which is tracked, out of the table.
func (e *Engine) untrack(s *sessionState) {
	e.tracked--
	if s.crowded {
		delete(e.crowded, sessionKey{s.agent, s.id})
		s.crowded = false
		return
	}
	p := e.sessions[s.id]
	switch {
	case p == s && s.sameID == nil:
		delete(e.sessions, s.id)
	case p == s:
		e.sessions[s.id] = s.sameID
	default:
		for p.sameID != s {
			p = p.sameID
		}
		p.sameID = s.sameID
	}
	s.sameID = nil
}

// evict forgets the least recently active session, an ended one when there
// is one. Events it holds are released first: nothing received is lost. Its
// ID is remembered in a bounded window, with its next expected sequence
// number, so an event after its end is still caught and a live session seen
// again resumes where it was instead of being taken for a new one.
func (e *Engine) evict(now time.Time) {
	s := e.over.head
	if s == nil {
		s = e.live.head
	}
	if s == nil {
		return
	}
	if s.r != nil && len(s.r.q) > 0 {
		e.flushSession(s, now)
	}
	e.endResend(s, now)
	if !s.ended && !e.overflowed {
		e.overflowed = true
		e.diagnose(now, "capacity", "", "", fmt.Sprintf(
			"More than %d sessions are active at once; the least recently active are forgotten, so some checks of their order and lifecycle are skipped.",
			e.cfg.MaxSessions))
	}
	e.list(s).remove(s)
	e.untrack(s)
	e.gone.put(e.hash.sumAll(s.agent, s.id), goneSession{expect: s.expect, known: s.known, ended: s.ended, lost: s.lost})
}

// goneSession is what the engine still knows of a session it forgot: where
// its sequence numbers were, which of them were never announced, and
// whether it had ended.
type goneSession struct {
	expect       int64
	known, ended bool
	lost         []seqRange
}

// endSession moves s to the ended list and drops what only a live session needs.
func (e *Engine) endSession(s *sessionState) {
	e.list(s).remove(s)
	s.ended = true
	s.tools = nil
	e.over.pushBack(s)
}

// sumAll returns the key of the strings parts, each preceded by its length,
// so that no two different lists share a key by construction (a NUL inside
// an ID cannot make ("a\x00b", "c") equal ("a", "b\x00c")).
func (x *hasher) sumAll(parts ...string) uint64 {
	x.h.Reset()
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		x.h.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		x.h.WriteString(p)
	}
	return x.h.Sum64()
}
