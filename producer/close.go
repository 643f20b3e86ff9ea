package producer

// This file decides when nobody can answer a prompt, so that its default
// applies at once instead of when its time runs out.

// subscribersGoneLocked applies, once the last subscription has closed or
// its connection ended, the default decision of every prompt still
// waiting, as if its time had run out (spec §5.8.2): nobody is left to
// answer it. Deployed-layout streams, which hold no subscription, do not
// count. p.mu is held.
func (p *Producer) subscribersGoneLocked() {
	if p.broken(BreakNoCloseDefault) {
		return
	}
	if len(p.subs) > 0 {
		p.unanswerableLocked()
		return
	}
	for _, pr := range p.prompts {
		pr.noOneLeftLocked(TimedOut)
	}
}

// unanswerableLocked applies at once the default of every waiting prompt
// that no one connected can answer: every subscription declared it cannot
// answer that kind of prompt (spec §5.3.1.4, §5.3.1.5), and no stream of
// the deployed layout is open. Call it whenever subscriptions, their terms
// or the deployed-layout streams change. p.mu is held.
func (p *Producer) unanswerableLocked() {
	for _, pr := range p.prompts {
		if !p.answerableLocked(pr.typ) {
			pr.noOneLeftLocked(Defaulted)
		}
	}
}

// answerableLocked reports whether a prompt of type typ may get an answer:
// a deployed-layout stream is open, some subscription can answer it, or no
// one has subscribed yet (it waits for its time, as it always has). p.mu
// is held.
func (p *Producer) answerableLocked(typ string) bool {
	if p.anonymous > 0 || len(p.subs) == 0 {
		return true
	}
	for _, sub := range p.subs {
		if sub.terms.answers(typ) {
			return true
		}
	}
	return false
}

// noOneLeftLocked lets pr's default decision apply now, settled as how,
// unless it is settled or let go already. p.mu is held.
func (pr *prompt) noOneLeftLocked(how Resolution) {
	select {
	case <-pr.settled:
	case <-pr.gone:
	default:
		pr.goneAs = how
		close(pr.gone)
	}
}
