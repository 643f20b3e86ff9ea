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
		select {
		case <-pr.settled:
		case <-pr.gone:
		default:
			close(pr.gone)
		}
	}
}
