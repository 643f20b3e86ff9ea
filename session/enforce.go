// enforce.go: the honored terms applied on the subscriber's side, so a
// producer that breaks them is noticed and the user still gets what was
// agreed. Critical events always pass.

package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// maxNotedTypes bounds how many filtered-out types are remembered, so a
// hostile producer cannot grow memory by inventing types.
const maxNotedTypes = 64

// Enforcer applies honored terms to arriving events: event filters and the
// rate, as a token bucket holding at most one second of events. It is not
// safe for concurrent use; the goroutine that drives the Engine owns it.
type Enforcer struct {
	rate    int // events per second; 0 is no limit
	filters []protocol.EventFilters
	grace   time.Time // until then, events sent under earlier terms are tolerated

	tokens float64
	last   time.Time

	burst   bool // events are arriving beyond the rate
	over    int  // of them, so far in this burst
	dropped int  // of those, background ones not announced
	noted   map[string]bool
	local   bool // NewLocalFilter: filtering is ours alone, nothing to tell
}

// NewEnforcer applies every one of terms: the lowest rate any sets, and
// all their filters (pass the request and the honored capabilities, so a
// producer granting more than was asked is still held to the request).
// No terms, or zero Capabilities, enforce nothing.
func NewEnforcer(terms ...protocol.Capabilities) *Enforcer {
	e := &Enforcer{noted: map[string]bool{}}
	for _, t := range terms {
		if r := t.MaxEventsPerSecond; r > 0 && (e.rate == 0 || r < e.rate) {
			e.rate = r
		}
		if t.EventFilters != nil {
			e.filters = append(e.filters, *t.EventFilters)
		}
	}
	e.tokens = float64(e.rate)
	return e
}

// NewLocalFilter applies the user's event filters to a source that
// negotiated nothing (a file, a producer without a handshake): no rate,
// and no line blaming the producer, which promised nothing.
func NewLocalFilter(f protocol.EventFilters) *Enforcer {
	e := NewEnforcer(protocol.Capabilities{EventFilters: &f})
	e.local = true
	return e
}

// Tolerate lets events sent under earlier terms through until the given
// time: after a renegotiation, events already in flight may break the new
// terms (spec §5.7.2). They are still filtered, silently, and the rate is
// not held against the producer.
func (e *Enforcer) Tolerate(until time.Time) { e.grace = until }

// Rate is the enforced rate in events per second; 0 is no limit.
func (e *Enforcer) Rate() int { return e.rate }

// Admit says whether ev is to be announced, and gives any diagnostic the
// user should hear: a filtered type the producer sent anyway (once per
// type), the start of a burst beyond the honored rate, and its end. Critical
// events are always admitted and do not use up the rate. Non-critical
// events beyond the rate are still announced, except background ones
// (spec §5.6.2 lets a subscriber drop those).
func (e *Enforcer) Admit(ev *protocol.Event, now time.Time) (bool, []Diagnostic) {
	if ev.IsCritical() {
		return true, nil
	}
	tolerant := now.Before(e.grace)
	if !e.passes(ev.Type) {
		if e.local || tolerant || len(e.noted) >= maxNotedTypes || e.noted[ev.Type] {
			return false, nil
		}
		e.noted[ev.Type] = true
		return false, []Diagnostic{{At: now, Code: "terms", SessionID: ev.SessionID, EventID: ev.EventID, Message: oneLine(fmt.Sprintf(
			"The producer sent %s events, which your filters exclude; they are not announced.", ev.Type))}}
	}
	if e.rate <= 0 || tolerant {
		return true, nil
	}
	if !e.last.IsZero() {
		e.tokens = min(float64(e.rate), e.tokens+now.Sub(e.last).Seconds()*float64(e.rate))
	}
	e.last = now
	var diags []Diagnostic
	if e.tokens >= 1 {
		e.tokens--
		if e.burst {
			diags = append(diags, e.endBurst(now))
		}
		return true, diags
	}
	if !e.burst {
		e.burst = true
		diags = append(diags, Diagnostic{At: now, Code: "terms", SessionID: ev.SessionID, EventID: ev.EventID, Message: fmt.Sprintf(
			"The producer is sending faster than the %d events per second it agreed to; critical events are still announced.", e.rate)})
	}
	e.over++
	if ev.Urgency == protocol.UrgencyBackground {
		e.dropped++
		return false, diags
	}
	return true, diags
}

// Flush ends a burst in progress, reporting it; nil when there is none.
func (e *Enforcer) Flush(now time.Time) []Diagnostic {
	if !e.burst {
		return nil
	}
	return []Diagnostic{e.endBurst(now)}
}

func (e *Enforcer) endBurst(now time.Time) Diagnostic {
	msg := fmt.Sprintf("The producer is back within the agreed rate; %d events came beyond it", e.over)
	if e.dropped > 0 {
		msg += fmt.Sprintf(", of which %d background events were not announced", e.dropped)
	}
	e.burst, e.over, e.dropped = false, 0, 0
	return Diagnostic{At: now, Code: "terms", Message: msg + "."}
}

// passes applies the event filters: an excluded type never passes; with
// include patterns, only the types they match do.
func (e *Enforcer) passes(typ string) bool {
	match := func(p string) bool { return Match(p, typ) }
	for _, f := range e.filters {
		if slices.ContainsFunc(f.Exclude, match) || len(f.Include) > 0 && !slices.ContainsFunc(f.Include, match) {
			return false
		}
	}
	return true
}
