package conform

// This file prints a run as lines for a person: each result once, as it
// becomes final, then what the report adds up to.

import "sync"

// Printer prints each result of a run once, as a line "PASS P-1.1: why",
// however often it is told of it: by Result, which ProducerOptions and
// SubscriberOptions take as Progress and which may be called from any
// goroutine, then by Finish for those it was not told of.
type Printer struct {
	// Printf prints one line; it sanitizes what it is given (term.IO
	// does), for a result's detail holds the implementation's own words.
	Printf func(format string, a ...any)

	mu      sync.Mutex
	printed map[string]bool
}

// Result prints r, unless a result of its ID was printed before.
func (p *Printer) Result(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.printed[r.ID] {
		return
	}
	if p.printed == nil {
		p.printed = map[string]bool{}
	}
	p.printed[r.ID] = true
	p.Printf("%s %s: %s\n", r.Status.Word(), r.ID, r.Detail)
}

// Finish prints the results of rep not printed yet, then a line of what
// the tests add up to and the claim, or why there is none.
func (p *Printer) Finish(rep *Report) {
	for _, r := range rep.Results {
		p.Result(r)
	}
	p.Printf("Level %v %s tests of %s: %s\n", rep.Level, rep.Role, rep.Target.Name(), rep.Summary())
	if claim := rep.Claim(); claim != "" {
		p.Printf("%s.\n", claim)
	} else {
		p.Printf("%s\n", rep.NotConforming())
	}
}
