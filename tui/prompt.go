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
}

// PromptOf copies what the TUI needs of p. Call it on the goroutine that owns p.
// Its wording is announce's, as line mode's details command reads it.
func PromptOf(p *session.Prompt) Prompt {
	ev := p.Event
	pr := Prompt{Number: p.Number, SessionID: protocol.Name(ev.SessionID), AgentID: ev.Producer.AgentID, Deadline: p.Deadline,
		Agent: announce.Agent(ev), Risk: protocol.Name(ev.RiskLevel), Topic: announce.PromptTopic(p)}
	for _, f := range announce.PromptFacts(p) {
		if !f.Headline { // the headline shows the topic, risk and default
			pr.Details = append(pr.Details, oneLine(f.String()))
		}
	}
	if ev.Type == protocol.TypeAwaitingClarify {
		pr.Question = true
		var choices []string
		for i, c := range ev.Choices {
			label := oneLine(c.Label.String())
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

// headline is the prompt's first line: everything needed to decide. The
// topic keeps its own closing mark ("…for?"); prose.Join adds a stop only
// where a sentence has none.
func (p *Prompt) headline(now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, prompt %d", p.kind(), p.Number)
	if p.Agent != "" {
		b.WriteString(" from " + p.Agent)
	}
	b.WriteString(": " + oneLine(p.Topic))
	parts := []string{b.String()}
	if p.Risk != "" {
		parts = append(parts, "Risk "+p.Risk)
	}
	if p.Default != "" {
		parts = append(parts, "Default "+p.Default)
	}
	if !p.Deadline.IsZero() {
		left := p.Deadline.Sub(now).Round(time.Second)
		if left < 0 {
			left = 0
		}
		if len(parts) > 1 {
			parts[len(parts)-1] += fmt.Sprintf(", %s left", left)
		} else {
			parts = append(parts, fmt.Sprintf("%s left", left))
		}
	}
	return prose.Join(parts...)
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
