package session

import "sync/atomic"

// Numbers returns a prompt numbering that several engines may share
// (Config.Numbers): each call gives the next number, from 1, whichever
// goroutine calls it, so prompts are numbered uniquely across the engines.
func Numbers() func() int {
	var n atomic.Int64
	return func() int { return int(n.Add(1)) }
}

// nextNumber is the number of the next prompt offered for an answer.
func (e *Engine) nextNumber() int {
	if e.cfg.Numbers != nil {
		return e.cfg.Numbers()
	}
	e.number++
	return e.number
}
