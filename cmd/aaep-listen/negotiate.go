package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/aaep-term/aaep-term/internal/prose"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// closeWait bounds sending subscription.close on the way out.
const closeWait = 2 * time.Second

// inFlightGrace is how long after a renegotiation events sent under the
// earlier terms are tolerated.
const inFlightGrace = 2 * time.Second

// negotiation is where the subscription's terms stand: what was asked,
// what the producer granted, and the local enforcement of both.
type negotiation struct {
	subID     string
	initial   protocol.Capabilities // the subscription request as sent
	changed   protocol.Capabilities // what renegotiations changed since, merged
	requested protocol.Capabilities // the request, renegotiations merged in
	honored   protocol.Capabilities
	enf       *session.Enforcer // nil until the producer accepts
	local     *session.Enforcer // the user's filters alone, while enf is nil (localFilter)
	// pending is the renegotiation waiting for its answer, nil when none.
	pending *protocol.Capabilities
	// said are the differences from the request already told the user.
	said map[string]bool
	// notes are the producer's negotiation notes last told the user.
	notes string
	// end, when not empty, says why the subscription must end now; the
	// run closes it and stops.
	end string
	// closed is set once a subscription.close went either way (we sent it,
	// or the producer did): the producer applies the default decision of
	// the prompts still waiting (spec §5.8.2).
	closed bool
}

// adopt takes the terms of a subscription.accepted, the first one or the
// answer to a renegotiation: it checks that they grant no more than was
// asked (spec §5.4.4), tells the user what changed, and enforces them.
func (l *listener) adopt(b []byte, now time.Time) {
	var m protocol.SubscriptionAccepted
	if err := json.Unmarshal(b, &m); err != nil {
		return // accepted has said the acceptance is unreadable
	}
	n := &l.neg
	renegotiated := n.pending != nil
	resubscribed := false
	switch {
	case renegotiated:
		n.requested = merge(n.requested, *n.pending)
		n.changed = merge(n.changed, *n.pending)
		n.pending = nil
	case n.enf == nil:
		n.initial = l.o.Terms.Capabilities()
		n.requested = n.initial
	default:
		// Subscribed again after a lost connection: the request sent was
		// the first one, so the terms set since are asked for again below.
		n.requested = n.initial
		resubscribed = true
	}
	n.subID = m.SubscriptionID
	n.honored = m.HonoredCapabilities
	var broken []string
	for _, v := range session.CheckHonored(n.requested, n.honored) {
		l.Diagnose(session.Diagnostic{At: now, Code: "terms", Message: "The producer breaks the negotiation rules: " + v.Message})
		broken = append(broken, v.Message)
	}
	if renegotiated {
		l.say(prose.Join("The producer accepted the new terms", l.notesWords(m.NegotiationNotes)))
	}
	said := n.said
	n.said = map[string]bool{}
	for _, c := range session.Changes(n.requested, n.honored) {
		n.said[c] = true
		if !said[c] { // a renegotiation repeats only what is new
			l.say(c)
		}
	}
	old := n.enf
	n.enf = session.NewEnforcer(n.requested, n.honored)
	if old != nil {
		n.enf.Tolerate(now.Add(inFlightGrace))
	}
	if len(broken) > 0 && l.o.Terms.Strict {
		n.end = "Closing the subscription: the producer granted more than you asked for, and --strict is set."
		return
	}
	if resubscribed && !isZero(n.changed) {
		l.askAgain()
	}
}

// askAgain renegotiates, on a new subscription after a lost connection,
// the terms the user set while listening.
func (l *listener) askAgain() {
	n := &l.neg
	msg, err := session.Renegotiate(n.subID, n.changed)
	if err == nil {
		changes := n.changed
		n.pending = &changes
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
		defer cancel()
		err = l.conn.Send(ctx, msg)
	}
	if err != nil {
		n.pending = nil
		l.say(fmt.Sprintf("Subscribed again with the terms you started with; asking again for the ones you set since failed: %v.", err))
		return
	}
	l.say("Subscribed again; asking the producer again for the terms you set since.")
}

// isZero reports whether c sets no capability a renegotiation changes.
func isZero(c protocol.Capabilities) bool {
	return c.MaxEventsPerSecond == 0 && c.PreferredVerbosity == "" && c.Languages == nil && c.EventFilters == nil &&
		c.CognitiveLoad == "" && c.PaceWPM == 0 && c.CoalesceBoundaries == nil
}

// merge applies the capabilities a renegotiation set to the earlier ones.
func merge(base, changes protocol.Capabilities) protocol.Capabilities {
	if changes.MaxEventsPerSecond != 0 {
		base.MaxEventsPerSecond = changes.MaxEventsPerSecond
	}
	if changes.PreferredVerbosity != "" {
		base.PreferredVerbosity = changes.PreferredVerbosity
	}
	if changes.Languages != nil {
		base.Languages = changes.Languages
	}
	if changes.EventFilters != nil {
		base.EventFilters = changes.EventFilters
	}
	if changes.CognitiveLoad != "" {
		base.CognitiveLoad = changes.CognitiveLoad
	}
	if changes.PaceWPM != 0 {
		base.PaceWPM = changes.PaceWPM
	}
	if changes.CoalesceBoundaries != nil {
		base.CoalesceBoundaries = changes.CoalesceBoundaries
	}
	return base
}

// admit applies the negotiated terms to an event about to be announced;
// other deliveries always pass.
func (l *listener) admit(d session.Delivery) bool {
	enf := l.neg.enf
	if enf == nil {
		enf = l.localFilter()
	}
	if d.Kind != session.KindEvent || enf == nil || d.Event == nil {
		return true
	}
	ok, diags := enf.Admit(d.Event, d.At)
	for _, g := range diags {
		l.Diagnose(g)
	}
	return ok
}

// localFilter applies the user's --include and --exclude where no producer
// agreed to them (a file, the deployed layout); nil without filters.
func (l *listener) localFilter() *session.Enforcer {
	t := l.o.Terms
	if l.neg.local == nil && t.Filters() {
		l.neg.local = session.NewLocalFilter(protocol.EventFilters{Include: t.Include, Exclude: t.Exclude})
	}
	return l.neg.local
}

// refusedRenegotiation handles a subscription.rejected that answers a
// renegotiation: the subscription is over (spec §5.7). It reports whether
// the rejection was one.
func (l *listener) refusedRenegotiation(code, message string) bool {
	if l.neg.pending == nil {
		return false
	}
	l.neg.pending = nil
	why := "The producer refused the new terms, which ends the subscription: " + rejectionWords(code)
	if message != "" {
		why += " It says: " + protocol.Sanitize(message)
	}
	l.neg.end = why
	return true
}

// closeSubscription tells the producer the subscription ends, when there
// is one to end; a failure is only reported, since the run ends anyway.
func (l *listener) closeSubscription(code, why string) {
	if l.neg.subID == "" || l.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	why, _ = protocol.SplitTheirs(why) // the producer gets words, not our marks
	msg := session.Close(l.neg.subID, code, strings.TrimSuffix(why, "."))
	if err := l.conn.Send(ctx, msg); err != nil {
		l.Diagnose(session.Diagnostic{At: l.o.Now(), Code: "transport", Message: fmt.Sprintf("Could not tell the producer the subscription is closed: %v.", err)})
	}
	l.neg.subID, l.neg.closed = "", true
}

// ended reports whether the negotiation ended the subscription; if so it
// has closed it and told the user.
func (l *listener) ended() bool {
	if l.neg.end == "" {
		return false
	}
	l.closeSubscription(session.CloseTerms, l.neg.end)
	l.finish(l.neg.end)
	return true
}

// endBurst reports a flood beyond the agreed rate still in progress.
func (l *listener) endBurst(now time.Time) {
	if l.neg.enf == nil {
		return
	}
	for _, d := range l.neg.enf.Flush(now) {
		l.Diagnose(d)
	}
}

// notesWords tells the producer's negotiation notes, marked as its words,
// when they differ from the notes last told: a renegotiation that leaves
// them as they were does not repeat them.
func (l *listener) notesWords(notes string) string {
	notes = protocol.Sanitize(notes)
	if notes == l.neg.notes {
		return ""
	}
	l.neg.notes = notes
	if notes == "" {
		return "The producer no longer adds notes."
	}
	return "The producer notes: " + protocol.Theirs(notes)
}
