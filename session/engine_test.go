package session

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// t0 is the test clock's start.
var t0 = time.Date(2026, 6, 30, 14, 22, 0, 0, time.UTC)

// record is one thing the engine output: a delivery or a diagnostic.
type record struct {
	d    *Delivery
	diag *Diagnostic
}

func (r record) String() string {
	if r.diag != nil {
		return r.diag.Code + ": " + r.diag.Message
	}
	s := r.d.Kind.String()
	if ev := r.d.Event; ev != nil {
		s += " " + ev.EventID
	}
	return s
}

// recorder is an Output that keeps everything, in order.
type recorder struct{ log []record }

func (r *recorder) Deliver(d Delivery)    { r.log = append(r.log, record{d: &d}) }
func (r *recorder) Diagnose(d Diagnostic) { r.log = append(r.log, record{diag: &d}) }

// events returns the event IDs of KindEvent deliveries.
func (r *recorder) events() []string {
	var ids []string
	for _, x := range r.log {
		if x.d != nil && x.d.Kind == KindEvent {
			ids = append(ids, x.d.Event.EventID)
		}
	}
	return ids
}

// deliveries returns the deliveries of kind k.
func (r *recorder) deliveries(k DeliveryKind) []Delivery {
	var ds []Delivery
	for _, x := range r.log {
		if x.d != nil && x.d.Kind == k {
			ds = append(ds, *x.d)
		}
	}
	return ds
}

// diags returns the diagnostics with code code.
func (r *recorder) diags(code string) []Diagnostic {
	var ds []Diagnostic
	for _, x := range r.log {
		if x.diag != nil && x.diag.Code == code {
			ds = append(ds, *x.diag)
		}
	}
	return ds
}

func (r *recorder) reset() { r.log = nil }

func (r *recorder) dump() string {
	var b strings.Builder
	for _, x := range r.log {
		b.WriteString("\n\t" + x.String())
	}
	return b.String()
}

// ev returns an event of type typ ("tool.invoked", …) of session sess with
// sequence number seq; seq < 0 means none. Its event ID is "sess/seq" (or
// "sess/typ" without a number).
func ev(sess string, seq int64, typ string) *protocol.Event {
	e := &protocol.Event{
		Type:      "aaep:agent." + typ,
		SessionID: sess,
		Producer:  protocol.Producer{AgentID: "agent"},
		Urgency:   protocol.UrgencyNormal,
	}
	if seq >= 0 {
		e.Seq, e.HasSeq = seq, true
		e.EventID = fmt.Sprintf("%s/%d", sess, seq)
	} else {
		e.EventID = sess + "/" + typ
	}
	if e.IsCritical() {
		e.Urgency = protocol.UrgencyCritical
	}
	return e
}

func newTest(cfg Config) (*Engine, *recorder) {
	r := &recorder{}
	return New(cfg, r), r
}

func equal(a, b []string) bool {
	return strings.Join(a, ",") == strings.Join(b, ",")
}

func TestDedupe(t *testing.T) {
	e, r := newTest(Config{DedupeWindow: 3})
	a := ev("s", -1, "progress.updated")
	other := *a
	other.Producer.AgentID = "other-agent" // same event_id, another producer
	e.Handle(a, t0)
	e.Handle(a, t0)
	e.Handle(&other, t0)
	if got, want := r.events(), []string{"s/progress.updated", "s/progress.updated"}; !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if d := r.diags("duplicate"); len(d) != 1 || d[0].EventID != a.EventID {
		t.Fatalf("duplicate diagnostics: %v", r.dump())
	}

	// Once the window moved on, the key is forgotten.
	for i := range 3 {
		e.Handle(ev("s", -1, fmt.Sprint("x", i)), t0)
	}
	r.reset()
	e.Handle(a, t0)
	if got := r.events(); len(got) != 1 {
		t.Fatalf("after the window moved on: delivered %v, want the event again", got)
	}
	if e.seen.len() > 3 {
		t.Fatalf("dedupe window holds %d keys, want at most 3", e.seen.len())
	}
}

func TestEventsWithoutSessionOrSequencePassThrough(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(ev("", -1, "progress.updated"), t0)
	e.Handle(ev("s", -1, "session.started"), t0)
	e.Handle(ev("s", -1, "progress.updated"), t0)
	if got := r.events(); len(got) != 3 {
		t.Fatalf("delivered %v, want all three at once", got)
	}
	if !e.NextDeadline().IsZero() {
		t.Fatalf("NextDeadline = %v, want none", e.NextDeadline())
	}
}

func TestBounded(t *testing.T) {
	e, _ := newTest(Config{MaxSessions: 10, DedupeWindow: 50})
	for i := range 1000 {
		s := fmt.Sprint("sess_", i)
		e.Handle(ev(s, 0, "session.started"), t0)
		e.Handle(ev(s, 2, "progress.updated"), t0) // held
		if i%2 == 0 {
			e.Handle(ev(s, 1, "session.completed"), t0)
		}
	}
	if n := e.tracked; n > 10 {
		t.Errorf("%d sessions tracked, want at most 10", n)
	}
	if n := e.seen.len(); n > 50 {
		t.Errorf("%d dedupe keys, want at most 50", n)
	}
	if n := e.gone.len(); n > 10 {
		t.Errorf("%d forgotten session IDs, want at most 10", n)
	}
	if n := len(e.waiting); n > 10 {
		t.Errorf("%d sessions wait for events, want at most 10", n)
	}
}

func TestEvictionPrefersEndedSessions(t *testing.T) {
	e, r := newTest(Config{MaxSessions: 2})
	e.Handle(ev("old", 0, "session.started"), t0)
	e.Handle(ev("done", 0, "session.started"), t0)
	e.Handle(ev("done", 1, "session.completed"), t0)
	e.Handle(ev("new", 0, "session.started"), t0) // evicts "done", though "old" is older
	if e.lookup(sessionKey{"agent", "old"}) == nil {
		t.Fatal("the live session was evicted before the ended one")
	}
	if e.lookup(sessionKey{"agent", "done"}) != nil {
		t.Fatal("the ended session is still tracked")
	}
	r.reset()
	e.Handle(ev("done", 2, "progress.updated"), t0)
	e.Tick(t0.Add(time.Second))
	if d := r.diags("lifecycle"); len(d) != 1 || !strings.Contains(d[0].Message, "already ended") {
		t.Fatalf("an event after the end of a forgotten session: %v", r.dump())
	}

	// A live session forgotten and seen again is not taken for a new one.
	e.Handle(ev("x", 0, "session.started"), t0)
	e.Handle(ev("y", 0, "session.started"), t0) // "old" is evicted by now
	r.reset()
	e.Handle(ev("old", -1, "progress.updated"), t0)
	if d := r.diags("lifecycle"); len(d) != 0 {
		t.Fatalf("a forgotten live session seen again: %v", r.dump())
	}
}

func TestForgottenSessionResumes(t *testing.T) {
	e, r := newTest(Config{MaxSessions: 1, ReorderWait: wait})
	e.Handle(ev("a", 0, "session.started"), t0)
	e.Handle(ev("a", 1, "progress.updated"), t0)
	e.Handle(ev("a", 3, "progress.updated"), t0) // held: 2 is missing
	e.Handle(ev("b", 0, "session.started"), t0)  // "a" is forgotten; what it held is released
	if got, want := r.events(), []string{"a/0", "a/1", "a/3", "b/0"}; !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if d := r.diags("capacity"); len(d) != 1 {
		t.Fatalf("diagnostics: %s", r.dump())
	}
	r.reset()
	e.Handle(ev("a", 4, "progress.updated"), t0) // resumes at once where it was
	e.Handle(ev("b", 1, "progress.updated"), t0)
	e.Handle(ev("a", 2, "progress.updated"), t0) // still known to be late
	if got, want := r.events(), []string{"a/4", "b/1", "a/2"}; !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if len(r.diags("late")) != 1 || len(r.diags("lifecycle")) != 0 || len(r.diags("joined")) != 0 || len(r.diags("capacity")) != 0 {
		t.Fatalf("diagnostics: %s", r.dump())
	}
}

func TestHeldBoundAcrossSessions(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	for i := range defaultMaxHeld + 10 {
		s := fmt.Sprint("s", i)
		e.Handle(ev(s, 0, "session.started"), t0)
		e.Handle(ev(s, 2, "progress.updated"), t0.Add(time.Duration(i)))
	}
	if e.held != defaultMaxHeld {
		t.Fatalf("%d events held, want the bound %d", e.held, defaultMaxHeld)
	}
	// The ones that waited longest were released early.
	if got := len(r.diags("gap")); got != 10 {
		t.Fatalf("%d gaps reported, want 10", got)
	}
	if d := r.diags("gap")[0]; d.SessionID != "s0" {
		t.Fatalf("first released: %s, want s0", d.SessionID)
	}
}

// The sessions table, keyed by session_id with the other agents' sessions
// of the same session_id chained after the first, finds exactly the
// sessions the engine tracks (its live and ended lists), by agent and
// session_id, while agents share session_ids and sessions start, end and
// are forgotten to make room.
func TestSessionTableAgreesWithLists(t *testing.T) {
	for _, tc := range []struct {
		agents, max int
	}{{3, 7}, {9, 20}} { // the second more agents of one session_id than a chain holds
		sessionTableAgrees(t, tc.agents, tc.max)
	}
}

func sessionTableAgrees(t *testing.T, nAgents, maxSessions int) {
	rng := rand.New(rand.NewPCG(26, uint64(nAgents)))
	e, _ := newTest(Config{MaxSessions: maxSessions})
	var agents []string
	for i := range nAgents {
		agents = append(agents, fmt.Sprint("agent-", i))
	}
	ids := []string{"s1", "s2", "s3", "s4"}
	seq := map[sessionKey]int64{}
	crowded := false
	for i := range 3000 {
		k := sessionKey{agents[rng.IntN(len(agents))], ids[rng.IntN(len(ids))]}
		typ := "progress.updated"
		switch n := seq[k]; {
		case n == 0:
			typ = "session.started"
		case rng.IntN(10) == 0:
			typ = "session.completed"
		}
		x := ev(k.id, seq[k], typ)
		x.Producer.AgentID = k.agent
		x.EventID = fmt.Sprintf("%s/%s/%d", k.agent, k.id, seq[k])
		seq[k]++
		e.Handle(x, t0)
		listed := map[sessionKey]*sessionState{}
		for _, l := range []*sessionList{&e.live, &e.over} {
			for s := l.head; s != nil; s = s.next {
				listed[sessionKey{s.agent, s.id}] = s
			}
		}
		if len(listed) != e.tracked || e.tracked > maxSessions {
			t.Fatalf("event %d: %d sessions listed, %d tracked (at most %d)", i, len(listed), e.tracked, maxSessions)
		}
		crowded = crowded || len(e.crowded) > 0
		for _, id := range ids {
			n := 0
			for s := e.sessions[id]; s != nil; s = s.sameID {
				n++
			}
			if n > maxSameID {
				t.Fatalf("event %d: %d sessions in the chain of %s, more than %d", i, n, id, maxSameID)
			}
		}
		for _, a := range agents {
			for _, id := range ids {
				k := sessionKey{a, id}
				if got, want := e.lookup(k), listed[k]; got != want {
					t.Fatalf("event %d: session %v found %p, listed %p", i, k, got, want)
				}
			}
		}
	}
	if want := nAgents > maxSameID; crowded != want {
		t.Errorf("%d agents: sessions beyond a full chain %v, want %v", nAgents, crowded, want)
	}
}
