package console

import "sync"

// Notes holds the lines told from other goroutines (the outputs' note
// function, a "stop" being carried out), in order, none dropped, until the
// goroutine that owns the terminal takes them. The zero value is not
// usable: make one with NewNotes.
type Notes struct {
	mu    sync.Mutex
	lines []string
	ready chan struct{}
}

// NewNotes returns an empty Notes.
func NewNotes() *Notes { return &Notes{ready: make(chan struct{}, 1)} }

// Add keeps s, from any goroutine, and signals Ready.
func (n *Notes) Add(s string) {
	n.mu.Lock()
	n.lines = append(n.lines, s)
	n.mu.Unlock()
	select {
	case n.ready <- struct{}{}:
	default: // a signal is already waiting: Take will take s too
	}
}

// Ready receives once after one or more Adds.
func (n *Notes) Ready() <-chan struct{} { return n.ready }

// Take returns the lines added since the last Take, in order.
func (n *Notes) Take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.lines
	n.lines = nil
	return s
}
