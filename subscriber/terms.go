package subscriber

// terms.go: the subscription's terms: what was asked, what the producer
// granted, their enforcement, renegotiation and closing.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// closeWait bounds sending subscription.close on the way out.
const closeWait = 2 * time.Second

// inFlightGrace is how long after a renegotiation events sent under the
// earlier terms are tolerated.
const inFlightGrace = 2 * time.Second

// negotiation is where the subscription's terms stand.
type negotiation struct {
	subID     string
	initial   protocol.Capabilities // the subscription request as sent
	changed   protocol.Capabilities // what renegotiations changed since, merged
	requested protocol.Capabilities // the request, renegotiations merged in
	honored   protocol.Capabilities
	enf       *session.Enforcer // nil until the producer accepts
	accepted  *Acceptance       // new at every acceptance, with enf
	local     *session.Enforcer // the user's filters alone, while enf is nil
	// pending is the renegotiation waiting for its answer, nil when none.
	pending *protocol.Capabilities
	// said are the differences from the request already told the user.
	said map[string]bool
	// notes are the producer's negotiation notes last told the user.
	notes string
	// end, when not empty, says why the subscription must end now; endErr
	// is the End's error then.
	end    string
	endErr error
	// closed is set once a subscription.close went either way.
	closed bool
	// untold is set when our subscription.close could not be sent;
	// byProducer when the producer sent its own.
	untold, byProducer bool
	// noAnswers is set while the producer is still to be told that nobody
	// can answer here (CannotAnswer, answerless.go).
	noAnswers bool
}

// adopt takes the terms of a subscription.accepted, the first one or the
// answer to a renegotiation: it checks that they grant no more than was
// asked (spec §5.4.4), tells the user what changed, and enforces them.
func (c *Client) adopt(m protocol.SubscriptionAccepted, now time.Time) {
	n := &c.neg
	renegotiated := n.pending != nil
	resubscribed := false
	switch {
	case renegotiated:
		n.requested = n.requested.Merge(*n.pending)
		n.changed = n.changed.Merge(*n.pending)
		n.pending = nil
	case n.enf == nil:
		n.initial = c.cfg.Terms.Capabilities()
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
		c.diagnose(session.Diagnostic{At: now, Code: "terms", Message: "The producer breaks the negotiation rules: " + v.Message})
		broken = append(broken, v.Message)
	}
	if renegotiated {
		c.say(StatusTerms, prose.Join("The producer accepted the new terms", c.notesWords(m.NegotiationNotes)))
	}
	said := n.said
	n.said = map[string]bool{}
	heard := map[string]bool{}
	for _, ch := range session.HeardChanges(n.requested, n.honored) {
		heard[ch] = true
	}
	for _, ch := range session.Changes(n.requested, n.honored) {
		n.said[ch] = true
		switch {
		case said[ch]: // a renegotiation repeats only what is new
		case heard[ch]:
			c.say(StatusTerms, ch)
		default:
			c.sayQuiet(StatusTerms, ch)
		}
	}
	old := n.enf
	n.enf = session.NewEnforcer(n.requested, n.honored)
	n.accepted = &Acceptance{n: n.accepted.number() + 1}
	if old != nil {
		n.enf.Tolerate(now.Add(inFlightGrace))
	}
	if len(broken) > 0 && c.cfg.Terms.Strict {
		n.end = c.cfg.Hints.word(HintStrict, "Closing the subscription: the producer granted more than you asked for, and you asked for strict terms.")
		return
	}
	if resubscribed && n.changed.Renegotiable() {
		c.askAgain()
	}
	c.tellNoAnswers() // when it waited for this answer
}

// askAgain renegotiates, on a new subscription after a lost connection,
// the terms the user set while listening.
func (c *Client) askAgain() {
	n := &c.neg
	msg, err := session.Renegotiate(n.subID, n.changed)
	if err == nil {
		changes := n.changed
		n.pending = &changes
		// Said before sending: the answer may be handled as it comes.
		c.say(StatusTerms, "Subscribed again; asking the producer again for the terms you set since.")
		err = c.sendAnswered(context.Background(), msg)
	}
	if err != nil {
		n.pending = nil
		c.say(StatusTerms, fmt.Sprintf("Subscribed again with the terms you started with; asking again for the ones you set since failed: %v.", err))
	}
}

// admit applies the negotiated terms to an event about to be announced;
// other deliveries always pass.
func (c *Client) admit(d *session.Delivery) bool {
	enf := c.neg.enf
	if enf == nil {
		enf = c.localFilter()
	}
	if d.Kind != session.KindEvent || enf == nil || d.Event == nil {
		return true
	}
	ok, diags := enf.Admit(d.Event, d.At)
	for _, g := range diags {
		c.diagnose(g)
	}
	return ok
}

// localFilter applies the user's include and exclude filters where no
// producer agreed to them (a file, the deployed layout); nil without filters.
func (c *Client) localFilter() *session.Enforcer {
	t := &c.cfg.Terms // not a copy of the terms at every event
	if c.neg.local == nil && t.Filters() {
		c.neg.local = session.NewLocalFilter(protocol.EventFilters{Include: t.Include, Exclude: t.Exclude})
	}
	return c.neg.local
}

// refusedRenegotiation handles a subscription.rejected that answers a
// renegotiation: the subscription is over (spec §5.7).
func (c *Client) refusedRenegotiation(code, message string) bool {
	if c.neg.pending == nil {
		return false
	}
	c.neg.pending = nil
	why := "The producer refused the new terms, which ends the subscription: " + c.cfg.Hints.RejectionWords(code)
	if message != "" {
		why += " It says: " + protocol.Line(message)
	}
	c.neg.end = why
	c.neg.endErr = &RejectedError{Code: code, Message: message, Renegotiation: true}
	return true
}

// closeSubscription tells the producer the subscription ends, when there
// is one to end; a failure is only reported, since the run ends anyway.
func (c *Client) closeSubscription(code, why string) {
	if c.neg.subID == "" || c.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	why, _ = protocol.SplitTheirs(why) // the producer gets words, not our marks
	msg := session.Close(c.neg.subID, code, strings.TrimSuffix(why, "."))
	if err := c.send(ctx, msg); err != nil {
		c.diagnose(session.Diagnostic{At: c.now(), Code: "transport", Message: fmt.Sprintf("Could not tell the producer the subscription is closed: %v.", err)})
		c.neg.untold = true
	}
	c.neg.subID, c.neg.closed = "", true
}

// endBurst reports a flood beyond the agreed rate still in progress.
func (c *Client) endBurst(now time.Time) {
	if c.neg.enf == nil {
		return
	}
	for _, d := range c.neg.enf.Flush(now) {
		c.diagnose(d)
	}
}

// notesWords tells the producer's negotiation notes, marked as its words,
// when they differ from the notes last told.
func (c *Client) notesWords(notes string) string {
	notes = protocol.Line(notes)
	if notes == c.neg.notes {
		return ""
	}
	c.neg.notes = notes
	if notes == "" {
		return "The producer no longer adds notes."
	}
	return "The producer notes: " + protocol.Theirs(notes)
}

// ErrNoSubscription is returned by Renegotiate when the producer did not
// negotiate terms (a file, the deployed layout).
var ErrNoSubscription = errors.New("subscriber: this producer did not negotiate terms with a subscription")

// ErrRenegotiating is returned by Renegotiate while an earlier change waits
// for the producer's answer.
var ErrRenegotiating = errors.New("subscriber: a change of terms is already waiting for the producer's answer")

// Renegotiate asks the producer for the capabilities changes sets (and
// only those; session.Terms.Set gives them for one change). The producer's
// answer comes in the stream: a status when it accepts, and the End when it
// refuses, which ends the subscription (spec §5.7). Over HTTP, where the
// answer comes back with the request, it is handled before Renegotiate
// returns, ahead of every frame not yet handled. Without a subscription
// (a file, the deployed layout) it returns ErrNoSubscription; while an
// earlier change waits for its answer, ErrRenegotiating.
func (c *Client) Renegotiate(ctx context.Context, changes protocol.Capabilities) error {
	var err error
	if derr := c.do(ctx, func() {
		switch {
		case c.neg.subID == "":
			err = ErrNoSubscription
			return
		case c.neg.pending != nil:
			err = ErrRenegotiating
			return
		}
		var msg []byte
		msg, err = session.Renegotiate(c.neg.subID, changes)
		if err == nil {
			c.neg.pending = &changes
			err = c.sendAnswered(ctx, msg)
		}
		if err != nil {
			c.neg.pending = nil
			return
		}
		if f := c.neg.requested.Merge(changes).EventFilters; f != nil {
			c.eng.Filtered(len(f.Include) > 0 || len(f.Exclude) > 0)
		}
	}); derr != nil {
		return derr
	}
	return err
}
