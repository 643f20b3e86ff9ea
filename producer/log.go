package producer

import "slices"

// eventLog is a list of published events that streams read with a cursor:
// the shared history every stream of a run reads, or the events of one
// stream's own playing of a recorded session (replay.go). It is guarded by
// Producer.mu; appending to it must be followed by broadcastLocked.
type eventLog struct {
	recs []record
	base uint64 // index of recs[0] among every event ever appended
	// ended is set on a stream's own log once nothing more will come;
	// complete, when that is because the capture was played to its end.
	ended, complete bool
	// own marks a stream's own log: it keeps only what its one reader has
	// not yet taken, and its writer waits while too much is unread.
	own bool
	// read is how far the reader of an own log has taken; unread, if not
	// nil, is closed when read moves (for a writer waiting on it).
	read   uint64
	unread chan struct{}
}

// ownBacklog is how many events a stream's own playing may get ahead of
// its reader before it waits.
const ownBacklog = 1024

// end is the index of the event after the last one.
func (l *eventLog) end() uint64 { return l.base + uint64(len(l.recs)) }

// add appends r, dropping what no reader needs any more: the oldest
// events of the shared history beyond historyLimit, or what the reader of
// an own log has taken.
func (l *eventLog) add(r record) {
	l.recs = append(l.recs, r)
	drop := 0
	switch {
	case l.own:
		drop = int(l.read - l.base)
	case len(l.recs)-historyLimit > historyLimit/4:
		drop = len(l.recs) - historyLimit
	}
	if drop > 0 {
		l.recs = slices.Clone(l.recs[drop:])
		l.base += uint64(drop)
	}
}

// from returns the events from index i on, and the index after them. On an
// own log it marks them taken, waking a writer waiting for room.
func (l *eventLog) from(i uint64) ([]record, uint64) {
	i = min(max(i, l.base), l.end())
	recs := slices.Clone(l.recs[i-l.base:])
	if l.own && l.end() > l.read {
		l.read = l.end()
		if l.unread != nil {
			close(l.unread)
			l.unread = nil
		}
	}
	return recs, l.end()
}

// full reports whether an own log's writer must wait for its reader; it
// then returns a channel closed when the reader has taken more.
func (l *eventLog) full() (<-chan struct{}, bool) {
	if !l.own || l.end()-l.read < ownBacklog {
		return nil, false
	}
	if l.unread == nil {
		l.unread = make(chan struct{})
	}
	return l.unread, true
}

// after returns the index after the event with the given id, searching from
// the newest; false when the log does not hold it.
func (l *eventLog) after(id string) (uint64, bool) {
	for i := len(l.recs) - 1; i >= 0; i-- {
		if l.recs[i].id == id {
			return l.base + uint64(i) + 1, true
		}
	}
	return 0, false
}
