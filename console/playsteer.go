// steering.go: the player as the replay engine's Player, for steered play.

package main

import (
	"time"

	"github.com/aaep-term/aaep-term/capture"
)

// steering is the player as replay.Steered drives it.
type steering struct{ p *player }

func (s steering) Record(rec capture.Record, at time.Time)        { s.p.record(rec, at) }
func (s steering) Settle()                                        { s.p.settle() }
func (s steering) Say(at time.Time, text string)                  { s.p.say(at, text) }
func (s steering) SayConnections(at time.Time, h *capture.Header) { s.p.sayConnections(at, h) }
func (s steering) Flush()                                         { s.p.flush() }
func (s steering) Reset()                                         { s.p.reset() }
func (s steering) Mute(muted bool)                                { s.p.muted = muted }
func (s steering) Finish(at time.Time, why string, problems []capture.Diagnostic) {
	s.p.finish(at, why, problems)
}
