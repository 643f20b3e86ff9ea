package subscriber

// groupturns.go: how a Group's stream takes its members' updates. A member's
// client lists the member when it queues an update after none; whoever
// takes the stream (the listener's loop) takes the updates from the client
// itself, a member's critical ones first. No goroutine stands between a
// client's queue and the stream, so taking a burst of many members costs
// one wake-up of the taker, not a goroutine switch per member, and nothing
// taken waits for a goroutine of its own to run.

import "sync"

// turns lists the members whose updates wait to be taken.
type turns struct {
	mu sync.Mutex
	// members have updates queued, each listed once, in the order their
	// first update was queued; a member whose batch leaves updates behind
	// is listed again, last. Guarded by mu.
	members []*Member
	// alarms have a critical update queued, each listed once, in the order
	// queued. Guarded by mu.
	alarms []*Member
	ready  chan struct{} // holds a token while a member may be listed
}

func newTurns() turns { return turns{ready: make(chan struct{}, 1)} }

// list lists m as having updates queued; critical: a critical one.
func (t *turns) list(m *Member, critical bool) {
	t.mu.Lock()
	if !m.inTurn {
		m.inTurn = true
		t.members = append(t.members, m)
	}
	if critical && !m.inAlarms {
		m.inAlarms = true
		t.alarms = append(t.alarms, m)
	}
	t.mu.Unlock()
	signal(t.ready)
}

// order is which members a take looks at first.
type order int

const (
	alarmsFirst order = iota // a member with a critical update, else the next in turn
	alarmsOnly               // a member with a critical update, or none
	inTurn                   // the next member in turn (a member with a critical update only when none is)
)

// next removes the first member of the alarms or of the members in turn,
// as o says; alarm says which. ok is false when none is listed.
func (t *turns) next(o order) (m *Member, alarm, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case len(t.alarms) > 0 && (o != inTurn || len(t.members) == 0):
		m, t.alarms = shift(t.alarms)
		m.inAlarms = false
		alarm = true
	case o == alarmsOnly || len(t.members) == 0:
		return nil, false, false
	default:
		m, t.members = shift(t.members)
		m.inTurn = false
	}
	if len(t.alarms)+len(t.members) > 0 {
		signal(t.ready) // for the next taker, or the next take
	}
	return m, alarm, true
}

// shift removes the first of ms, moving the rest down so that the array
// is reused rather than grown.
func shift(ms []*Member) (*Member, []*Member) {
	m := ms[0]
	n := copy(ms, ms[1:])
	ms[n] = nil
	return m, ms[:n]
}

// take is the next batch of the stream, of the member o says (turns.next):
// a member's updates up to its last critical one, or the updates of the
// member in turn, BatchMax at most; that member is then listed again, last,
// when updates of it still wait. A member listed whose updates were taken
// meanwhile is passed over.
func (g *Group) take(o order) (Batch, bool) {
	for {
		m, alarm, ok := g.turns.next(o)
		if !ok {
			return Batch{}, false
		}
		var us []Update
		if alarm {
			us = m.c.takeCritical()
		} else {
			var more bool
			us, more = m.c.takeTurn(g.cfg.BatchMax)
			if more {
				g.turns.list(m, false)
			}
		}
		if len(us) > 0 {
			return Batch{m, us}, true
		}
	}
}

// feed makes listed told whenever an update is queued after none, or a
// critical one (emit); updates already waiting are told at once.
func (c *Client) feed(listed func(critical bool)) {
	c.mu.Lock()
	c.listed = listed
	waiting, critical := c.queue.len() > 0, c.crit > 0
	c.mu.Unlock()
	if waiting {
		listed(critical)
	}
}

// takeTurn takes up to max updates waiting (all when max <= 0), in order,
// and reports whether more still wait.
func (c *Client) takeTurn(max int) (us []Update, more bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	us = c.takeUpTo(max)
	return us, c.queue.len() > 0
}
