package subscriber

// critical.go: a critical update is taken ahead of its turn (Group's
// critical lane), together with every update of the same client queued
// before it, so that it overtakes other clients' updates but never an
// earlier one of its own.

import "github.com/aaep-term/aaep-term/session"

// Critical reports whether u must be told ahead of other agents' updates:
// a delivery of a critical event (it says so, or its type is critical), or
// what the user must hear about a prompt at once (expired, left, not
// offered, a safety warning), as announce gives them critical priority.
func (u Update) Critical() bool { return u.critical() }

// critical is Critical without a copy of the update: the client asks it of
// every update it queues.
func (u *Update) critical() bool {
	if u.Kind != KindDelivery {
		return false
	}
	switch u.Delivery.Kind {
	case session.KindPromptExpired, session.KindSafetyWarning, session.KindPromptNotOffered, session.KindPromptLeft:
		return true
	}
	return u.Delivery.Kind == session.KindEvent && u.Delivery.Event != nil && u.Delivery.Event.IsCritical()
}

// take removes the first n updates from the queue and returns them; c.mu
// is held. A batch that is a block of the queue is that block, lent
// (updateQueue.take): a client whose reader gives its batches back
// (giveBack) copies nothing and allocates nothing for a stream of updates.
func (c *Client) take(n int) []Update {
	out := c.queue.take(n)
	c.crit = max(0, c.crit-n)
	for i := range out {
		u := &out[i] // not a copy: an update is some three hundred bytes
		p := u.Delivery.Prompt
		switch {
		case p == nil || u.Kind != KindDelivery:
		case offers(u.Delivery):
			c.shown[p.Number] = c.now()
		case settled(p.State):
			c.forgetShown(p.Number)
		}
	}
	return out
}

// Critical reports whether an update of b is critical (Update.Critical),
// without a copy of each update: a console asks it of every batch.
func (b Batch) Critical() bool { return lastCritical(b.Updates) >= 0 }

// lastCritical is the index of the last critical update of b; -1 when
// none is.
func lastCritical(b []Update) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i].queuedAs {
		case critYes:
			return i
		case critUnknown:
			if b[i].critical() {
				return i
			}
		}
	}
	return -1
}

// giveBack takes back the array of updates b, taken from c and told: the
// caller keeps none of them. A block c's queue lent (every batch of at
// most blockSize updates once batches come back), cleared to the updates
// it was lent with, holds no event and goes back to c's queue (its spare,
// else the pool of blocks of c's group, where the next burst of c or of
// another member takes it). Anything else, or a block given back again,
// is left to the collector: no block is ever in two queues.
func (c *Client) giveBack(b []Update) {
	if !c.queue.lend.Load() {
		c.queue.lend.Store(true) // from now on, the queue lends its blocks
	}
	c.mu.Lock()
	blk, ok := c.queue.back(b)
	c.mu.Unlock()
	if !ok {
		return
	}
	clear(blk)
	c.queue.release(blk)
}

// takeUpTo takes the first max updates waiting (all when max <= 0, or
// fewer wait), in order; nil when none waits. c.mu is held. A queue that
// was full has room again: the owner goroutine, which stopped reading from
// the producer, is told (drained).
func (c *Client) takeUpTo(max int) []Update {
	n := c.queue.len()
	if n == 0 {
		return nil
	}
	if max <= 0 || max > n {
		max = n
	}
	if n >= c.maxQueued() {
		signal(c.drained)
	}
	return c.take(max)
}

// takeCritical takes the queued updates up to and including the last
// critical one, in order; nil when no critical update waits.
func (c *Client) takeCritical() []Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.crit == 0 {
		return nil
	}
	return c.takeUpTo(c.crit)
}
