package acp

import (
	"errors"
	"io"
	"sync"
)

// queue holds the AAEP messages the subscriber has yet to read. Events
// from the agent wait while it is full, so a slow subscriber holds the
// agent back (its output pipe fills) instead of losing events; the
// bridge's own answers never wait.
type queue struct {
	max   int
	mu    sync.Mutex
	msgs  [][]byte
	end   error // set once finished; Read returns it after the messages
	ready chan struct{}
	room  chan struct{}
	stop  chan struct{} // closed when finished
	once  sync.Once
}

func newQueue(max int) *queue {
	return &queue{max: max, ready: make(chan struct{}, 1), room: make(chan struct{}, 1), stop: make(chan struct{})}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// push appends msg, waiting while the queue is full. It reports false
// when the queue is finished.
func (q *queue) push(msg []byte) bool {
	for {
		q.mu.Lock()
		if q.end != nil {
			q.mu.Unlock()
			return false
		}
		if len(q.msgs) < q.max {
			q.msgs = append(q.msgs, msg)
			q.mu.Unlock()
			signal(q.ready)
			return true
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-q.stop:
		}
	}
}

// pushFront puts msg before every message waiting, at once.
func (q *queue) pushFront(msg []byte) {
	q.mu.Lock()
	if q.end == nil {
		q.msgs = append([][]byte{msg}, q.msgs...)
	}
	q.mu.Unlock()
	signal(q.ready)
}

// pop returns the next message, waiting for one; once the queue is
// finished and empty, the error it was finished with; once done is closed
// (nil: never), errStopped.
func (q *queue) pop(done <-chan struct{}) ([]byte, error) {
	for {
		q.mu.Lock()
		if len(q.msgs) > 0 {
			m := q.msgs[0]
			q.msgs[0] = nil
			q.msgs = q.msgs[1:]
			q.mu.Unlock()
			signal(q.room)
			return m, nil
		}
		end := q.end
		q.mu.Unlock()
		if end != nil {
			return nil, end
		}
		select {
		case <-q.ready:
		case <-q.stop:
		case <-done:
			return nil, errStopped
		}
	}
}

// errStopped ends a pop whose caller stopped waiting.
var errStopped = errors.New("acp: stopped waiting for the agent")

// finish ends the queue: err (io.EOF for a clean end) follows the
// messages waiting. The first call counts.
func (q *queue) finish(err error) {
	if err == nil {
		err = io.EOF
	}
	q.once.Do(func() {
		q.mu.Lock()
		q.end = err
		q.mu.Unlock()
		close(q.stop)
	})
}
