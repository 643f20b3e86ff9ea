// Package connfail records why a connection to a local daemon (BRLTTY,
// speech-dispatcher) can no longer be used: the first reason given wins.
package connfail

import (
	"errors"
	"sync"
)

// Reason is why a connection failed; the zero Reason is a working one.
// It is safe for concurrent use.
type Reason struct {
	mu  sync.Mutex
	err error
}

// Set records err unless a reason is known already.
func (r *Reason) Set(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// Err is the recorded reason, or nil while the connection works.
func (r *Reason) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Or is the recorded reason, or closed when none was recorded (the
// connection ended without one).
func (r *Reason) Or(closed string) error {
	if err := r.Err(); err != nil {
		return err
	}
	return errors.New(closed)
}
