package producer

// This file holds the breaks: named faults that make the producer violate
// one requirement of the conformance chapter each, so a conformance suite
// can be shown to catch every one of them (and nothing else).

import (
	"slices"

	"github.com/aaep-term/aaep-term/protocol"
)

// The breaks Options.Break may name. Each violates one Level 2 or Level 3
// producer requirement and keeps every other.
const (
	// BreakToolFirst announces the irreversible tool of a confirmation's
	// accept branch before asking (tool.invoked before the confirmation).
	BreakToolFirst = "tool-before-confirmation"
	// BreakIgnoreReject goes ahead with the action when a reply rejects it.
	BreakIgnoreReject = "ignores-reject"
	// BreakNoTimeout never applies a prompt's default when its time runs out.
	BreakNoTimeout = "no-default-on-timeout"
	// BreakForgedToken lets a reply whose reply_token was never issued
	// settle the oldest waiting prompt.
	BreakForgedToken = "accepts-forged-token"
	// BreakWrongKind takes a clarification's response of any kind, even
	// one the question does not accept.
	BreakWrongKind = "accepts-wrong-kind"
	// BreakRate writes events to a new subscription as fast as it can,
	// whatever rate it was granted.
	BreakRate = "exceeds-rate"
	// BreakExclude ignores a new subscription's exclude filter, while
	// granting it.
	BreakExclude = "ignores-exclude"
	// BreakHonorsMore grants a new subscription a higher rate than it
	// asked for (the rate it asked for is still kept).
	BreakHonorsMore = "honors-more-than-asked"
	// BreakRenegotiate agrees to a renegotiation and keeps the old terms.
	BreakRenegotiate = "ignores-renegotiate"
	// BreakNoCloseDefault keeps a prompt waiting when the subscriptions
	// that could answer it close, instead of applying its default.
	BreakNoCloseDefault = "no-default-on-close"
)

// Breaks lists every break, for tables of tests.
var Breaks = []string{BreakToolFirst, BreakIgnoreReject, BreakNoTimeout, BreakForgedToken,
	BreakWrongKind, BreakRate, BreakExclude, BreakHonorsMore, BreakRenegotiate, BreakNoCloseDefault}

// broken reports whether the producer runs with break name.
func (p *Producer) broken(name string) bool { return p.opts.Break == name }

// breakTerms spoils the terms of a new subscription as its break says.
func (p *Producer) breakTerms(h honored, t terms) (honored, terms) {
	switch p.opts.Break {
	case BreakRate:
		t.rate = p.rateCap()
	case BreakExclude:
		t.exclude = nil
	case BreakHonorsMore:
		h.MaxEventsPerSecond = p.rateCap()
	}
	return h, t
}

// ignoresReject reports whether the producer goes ahead although o rejected
// the confirmation by a reply.
func (p *Producer) ignoresReject(o Outcome) bool {
	return p.broken(BreakIgnoreReject) && o.Resolution == Rejected
}

// forgedPrompt returns, with BreakForgedToken, the oldest waiting prompt,
// which a reply with an unknown reply_token then settles. p.mu is held.
func (p *Producer) forgedPromptLocked() *prompt {
	if !p.broken(BreakForgedToken) {
		return nil
	}
	var waiting []*prompt
	for _, pr := range p.prompts {
		select {
		case <-pr.settled:
		default:
			if pr.typ == protocol.TypeAwaitingConfirmation {
				waiting = append(waiting, pr)
			}
		}
	}
	if len(waiting) == 0 {
		return nil
	}
	return slices.MinFunc(waiting, func(a, b *prompt) int { return a.expires.Compare(b.expires) })
}
