package producer

// subscribersGoneLocked applies, once the last subscription has closed or
// its connection ended, the default decision of every prompt still
// waiting, as if its time had run out (spec §5.8.2): nobody is left to
// answer it. Deployed-layout streams, which hold no subscription, do not
// count. p.mu is held.
func (p *Producer) subscribersGoneLocked() {
	if len(p.subs) > 0 {
		return
	}
	for _, pr := range p.prompts {
		pr.noOneLeftLocked()
	}
}

// NobodyAnswers tells the producer that no one can answer its prompts any
// more (a subscriber whose input has ended, such as aaep-listen --demo with
// standard input closed): every prompt waiting now, and every later one,
// applies its default decision at once, as if its time had run out. It is
// the producer that applies its default; no answer is sent for anyone.
func (p *Producer) NobodyAnswers() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nobody = true
	for _, pr := range p.prompts {
		pr.noOneLeftLocked()
	}
}

// noOneLeftLocked lets pr's default decision apply now, unless it is
// settled already. p.mu is held.
func (pr *prompt) noOneLeftLocked() {
	select {
	case <-pr.settled:
	case <-pr.gone:
	default:
		close(pr.gone)
	}
}
