package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// Prompt is what the TUI shows of a prompt waiting for the user: a copy taken
// on the listener's goroutine, so the TUI never reads the engine's state.
type Prompt struct {
	Number    int
	SessionID string // sanitized
	AgentID   string // as sent: a key with SessionID, never shown
	Question  bool   // a clarification, answered with text, not accept or reject
	Agent     string
	Topic     string // the action to confirm, or the question
	Details   []string
	Default   string // default decision or answer, "" when none
	Risk      string
	Choices   string // a question's choices on one line, "" when none
	// ChoiceLabels are a question's choices, in order, each on one line.
	ChoiceLabels []string
	// Kinds are the kinds of answer a question accepts: multiple_choice,
	// yes_no, numeric, freetext.
	Kinds    []string
	Deadline time.Time // zero when the prompt never times out
	// Digest is session.Prompt.Digest: the words the prompt was asked in,
	// sent with an answer so that it answers no other.
	Digest string
	// SecondStep, when not empty, is the question asked before an accept is
	// sent, naming the action: a high-risk confirmation that cannot be
	// undone is never accepted with one key (announce.TwoSteps).
	SecondStep string
}

// PromptOf copies what the TUI needs of p. Call it on the goroutine that owns p.
// Its wording is announce's, as line mode's details command reads it.
func PromptOf(p *session.Prompt) Prompt {
	ev := p.Event
	pr := Prompt{Number: p.Number, SessionID: protocol.Name(ev.SessionID), AgentID: ev.Producer.AgentID, Deadline: p.Deadline,
		Agent: announce.Agent(ev), Risk: protocol.Name(ev.RiskLevel), Topic: announce.PromptTopic(p), Digest: p.Digest()}
	if announce.TwoSteps(ev) {
		pr.SecondStep, _ = protocol.SplitTheirs(announce.SecondStep(p, "Press y to send; any other key sends nothing"))
	}
	for _, f := range announce.PromptFacts(p) {
		if !f.Headline { // the headline shows the topic, risk and default
			pr.Details = append(pr.Details, protocol.Line(f.String()))
		}
	}
	if ev.Type == protocol.TypeAwaitingClarify {
		pr.Question = true
		var choices []string
		for i, c := range ev.Choices {
			label := protocol.Line(c.Label.String())
			choices = append(choices, fmt.Sprintf("%d %s", i+1, label))
			pr.ChoiceLabels = append(pr.ChoiceLabels, label)
		}
		for _, k := range ev.AcceptedResponseKinds {
			pr.Kinds = append(pr.Kinds, protocol.Sanitize(k))
		}
		if len(choices) > 0 {
			pr.Choices = "Choices: " + strings.Join(choices, ", ") + "."
		}
		if ev.HasDefaultResponse {
			pr.Default = ev.DefaultResponse.String()
		}
	} else {
		pr.Default = protocol.Sanitize(ev.DefaultDecision)
	}
	if pr.Topic == "" {
		pr.Topic = ev.Summary("normal").String()
	}
	return pr
}

// sanitized is p with every text made safe to draw: whoever built it (the
// listener names the agent by its label), nothing in it reaches the screen
// raw. Text already safe is kept as it is.
func (p Prompt) sanitized() Prompt {
	p.Agent, p.SessionID = protocol.Name(p.Agent), protocol.Name(p.SessionID)
	p.Topic, p.Default, p.Risk = protocol.Sanitize(p.Topic), protocol.Sanitize(p.Default), protocol.Line(p.Risk)
	p.SecondStep = protocol.Line(p.SecondStep)
	p.Choices = protocol.Line(p.Choices)
	p.Details = lines(p.Details)
	p.ChoiceLabels = lines(p.ChoiceLabels)
	p.Kinds = lines(p.Kinds)
	return p
}

// lines are l's strings each sanitized to one line, in a new slice.
func lines(l []string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = protocol.Line(s)
	}
	return out
}

// kind is the prompt's kind in words.
func (p *Prompt) kind() string {
	if p.Question {
		return "QUESTION"
	}
	return "CONFIRMATION NEEDED"
}

// Bounds on a producer's words in a prompt's headline, in characters: a
// long name, risk or default is cut where it is shown, so what the prompt
// asks, its risk and its default always fit.
const (
	maxHeadAgent   = 24
	maxHeadRisk    = 16
	maxHeadDefault = 24
)

// headline is the prompt's first line: everything needed to decide. The
// topic keeps its own closing mark ("…for?"); prose.Join adds a stop only
// where a sentence has none.
func (p *Prompt) headline(now time.Time) string {
	lead, facts := p.headParts(now)
	return prose.Join(append([]string{lead}, facts...)...)
}

// headParts are the headline's parts: what the prompt asks (its kind,
// number, agent and topic), then the facts that must always be seen (its
// risk, its default and the time left), the producer's names cut short.
func (p *Prompt) headParts(now time.Time) (lead string, facts []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, prompt %d", p.kind(), p.Number)
	if p.Agent != "" {
		b.WriteString(" from " + prose.Cut(p.Agent, maxHeadAgent))
	}
	b.WriteString(": " + protocol.Line(p.Topic))
	if p.Risk != "" {
		facts = append(facts, "Risk "+prose.Cut(p.Risk, maxHeadRisk))
	}
	if p.Default != "" {
		facts = append(facts, "Default "+prose.Cut(protocol.Line(p.Default), maxHeadDefault))
	}
	if !p.Deadline.IsZero() {
		left := p.Deadline.Sub(now).Round(time.Second)
		if left < 0 {
			left = 0
		}
		if len(facts) > 0 {
			facts[len(facts)-1] += fmt.Sprintf(", %s left", left)
		} else {
			facts = append(facts, fmt.Sprintf("%s left", left))
		}
	}
	return b.String(), facts
}

// keysLine tells which keys answer the prompt, as they are bound.
func (p *Prompt) keysLine(k KeyMap) string {
	details := keyName(k.PromptDetails) + " details."
	if p.Question {
		var kinds []string
		for _, w := range widgetsFor(p) {
			kinds = append(kinds, w.String())
		}
		return strings.TrimSpace(p.Choices + " Keys: " + keyName(k.Accept) + " answer with " + strings.Join(kinds, " or ") + ", " + details)
	}
	return "Keys: " + keyName(k.Accept) + " accept, " + keyName(k.Reject) + " reject, " + details
}
