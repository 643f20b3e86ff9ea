package session

import (
	"fmt"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// This file bounds the prompts waiting for the user, per agent and in all
// (Config.MaxPendingPerAgent, 256, and Config.MaxPending, 1024), and keeps
// a prompt from being answered when its reply token is also on another
// pending prompt. A producer that floods prompts, or reuses reply tokens,
// is told once, in one critical line; its prompts beyond the bounds are
// still announced, as not offered for an answer, and nothing is sent for
// them. Memory and time per prompt stay flat however many arrive.

// promptBounds is what bounds the pending prompts: how many each agent has,
// which reply tokens they carry, and which floods were already told.
type promptBounds struct {
	agents map[string]*agentPrompts // agents with prompts pending
	tokens map[uint64]*tokenUse     // reply tokens on pending prompts
	flood  bool                     // all agents together reached MaxPending; told
	warned hashSet                  // agents told that they reuse reply tokens
}

// agentPrompts is one agent's pending prompts.
type agentPrompts struct {
	n     int  // pending prompts, offered or not
	flood bool // reached MaxPendingPerAgent; told, until n is down to half
}

// tokenUse is one reply token on pending prompts.
type tokenUse struct {
	n    int            // pending prompts carrying it
	last *pendingPrompt // the latest of them
}

// add counts pp, which just became pending.
func (b *promptBounds) add(pp *pendingPrompt) {
	if b.agents == nil {
		b.agents = make(map[string]*agentPrompts)
		b.tokens = make(map[uint64]*tokenUse)
		b.warned = newHashSet(tokenWindow)
	}
	agent := pp.p.Event.Producer.AgentID
	a := b.agents[agent]
	if a == nil {
		a = &agentPrompts{}
		b.agents[agent] = a
	}
	a.n++
	if pp.p.Event.ReplyToken == "" {
		return
	}
	u := b.tokens[pp.token]
	if u == nil {
		u = &tokenUse{}
		b.tokens[pp.token] = u
	}
	u.n++
	u.last = pp
}

// unbound stops counting pp, which leaves the pending list. A flood ends
// once the prompts waiting are down to half the bound, so a producer that
// stays at the bound is told once, not at each prompt.
func (e *Engine) unbound(pp *pendingPrompt) {
	b := &e.bounds
	agent := pp.p.Event.Producer.AgentID
	if a := b.agents[agent]; a != nil {
		a.n--
		if a.n <= e.cfg.MaxPendingPerAgent/2 {
			a.flood = false
		}
		if a.n <= 0 {
			delete(b.agents, agent)
		}
	}
	if pp.p.Event.ReplyToken != "" {
		if u := b.tokens[pp.token]; u != nil {
			if u.n--; u.n <= 0 {
				delete(b.tokens, pp.token)
			}
		}
	}
	if len(e.pending)-1 <= e.cfg.MaxPending/2 {
		b.flood = false
	}
}

// admit says why prompt ev may not be offered (empty when it may): its
// agent, or all agents, have as many prompts waiting as allowed. The first
// prompt of a flood also gets the critical line that tells of it.
func (e *Engine) admit(p *Prompt, now time.Time) (why string, warn []Delivery) {
	ev := p.Event
	b := &e.bounds
	who := agentWords(ev)
	flood := func(told *bool, format string, args ...any) {
		if !*told {
			*told = true
			warn = []Delivery{{Kind: KindSafetyWarning, At: now, Event: ev, Prompt: p, Note: fmt.Sprintf(format, args...)}}
		}
	}
	const nothingSent = " Nothing will be sent for it: the agent applies its default decision when its time runs out, or keeps waiting."
	if a := b.agents[ev.Producer.AgentID]; a != nil && a.n >= e.cfg.MaxPendingPerAgent {
		max := e.cfg.MaxPendingPerAgent
		flood(&a.flood, "%s is flooding you with prompts: %d of them are waiting, the most one agent may have. Its further prompts are announced but not offered for an answer until no more than %d of its prompts wait.",
			who, max, max/2)
		return fmt.Sprintf("Not offered for an answer: %s already has %d prompts waiting.", who, max) + nothingSent, warn
	}
	if len(e.pending) >= e.cfg.MaxPending {
		max := e.cfg.MaxPending
		flood(&b.flood, "Too many prompts: %d are waiting from all agents together, the most this listener offers. Further prompts are announced but not offered for an answer until no more than %d wait.",
			max, max/2)
		return fmt.Sprintf("Not offered for an answer: %d prompts are already waiting.", max) + nothingSent, warn
	}
	return "", nil
}

// shareToken makes p and other, a pending prompt with the same reply token,
// not offered for an answer: the agent could not tell which one a reply is
// for, so its default decision is left to apply to both. p may itself be
// not offered already (a flood) and not numbered. It returns the critical
// line telling the user, the first time p's agent does this.
func (e *Engine) shareToken(p *Prompt, other *pendingPrompt, now time.Time) []Delivery {
	o := other.p
	const neither = " Neither can be answered here and nothing is sent for them: the agent applies its default decision when their time runs out."
	const clash = "%s carries the same reply token as %s, so the agent could not tell which of them an answer is for."
	pair := fmt.Sprintf("prompts %d and %d", o.Number, p.Number)
	if p.Number == 0 {
		pair = fmt.Sprintf("prompt %d and a prompt not offered for an answer", o.Number)
	}
	if p.State == PromptNotOffered {
		p.why += fmt.Sprintf(" Its reply token is also on prompt %d, so that one can no longer be answered either.", o.Number)
	} else {
		p.State = PromptNotOffered
		p.why = fmt.Sprintf(clash, fmt.Sprintf("Prompt %d", p.Number), fmt.Sprintf("prompt %d", o.Number)) + neither
	}
	if o.State == PromptPending {
		o.State = PromptNotOffered
		other := "a prompt not offered for an answer"
		if p.Number > 0 {
			other = fmt.Sprintf("prompt %d", p.Number)
		}
		o.why = fmt.Sprintf(clash, fmt.Sprintf("Prompt %d", o.Number), other) + neither
	}
	k := e.hash.sum(p.Event.Producer.AgentID, "")
	if e.bounds.warned.has(k) {
		return nil
	}
	e.bounds.warned.add(k)
	who := agentWords(p.Event) + " is"
	if o.Event.Producer.AgentID != p.Event.Producer.AgentID {
		who = agentWords(o.Event) + " and " + agentWords(p.Event) + " are"
	}
	return []Delivery{{Kind: KindSafetyWarning, At: now, Event: p.Event, Prompt: p, Note: fmt.Sprintf(
		"%s reusing reply tokens: %s carry the same one, so an answer could settle the wrong prompt.", who, pair) + neither}}
}

// agentWords names ev's agent in a sentence.
func agentWords(ev *protocol.Event) string {
	if ev.Producer.AgentID == "" {
		return "An agent without an ID"
	}
	return "Agent " + oneLine(ev.Producer.AgentID)
}
