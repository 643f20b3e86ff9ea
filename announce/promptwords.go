package announce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// This file words the prompts waiting for the user when they ask about
// them: line mode's details and pending commands, and the prompt pane of
// the TUI. Both read these, so a prompt is told the same way in each.

// PromptKind says in a word what p asks for: "question" or "confirmation"
// (session.Prompt.Kind, the word the audit log uses too).
func PromptKind(p *session.Prompt) string { return p.Kind() }

// PromptTopic is what p asks, sanitized to one line: the question, or the
// action to confirm.
func PromptTopic(p *session.Prompt) string { return p.Asks().Line() }

// Agent names the agent that sent ev, sanitized: its name, else its id;
// "" when it gave neither.
func Agent(ev *protocol.Event) string {
	if n := ev.Producer.AgentName.Name(); n != "" {
		return n
	}
	return protocol.Name(ev.Producer.AgentID)
}

// Fact is one labelled fact of a prompt ("Consequence", "the money leaves
// at once").
type Fact struct {
	Label string // ours
	Value string // the producer's words, sanitized to one line
	// Choice is a choice's value, sanitized to one line, said with its
	// label; "" for other facts.
	Choice string
	// Headline marks what a prompt's first line says already: what it
	// asks, its risk and its default. A view that shows that line leaves
	// these out of the rest.
	Headline bool
}

// String is the fact as one line: "Consequence: the money leaves at once",
// "Choice 1 (value 19:00): Seven".
func (f Fact) String() string { return f.words(func(s string) string { return s }) }

// words is the fact as one line, the producer's words passed through theirs.
func (f Fact) words(theirs func(string) string) string {
	label := f.Label
	if f.Choice != "" {
		// The value goes with the label: after the producer's words it
		// would follow their closing mark ("Seven. (value 19:00)").
		label += " (value " + theirs(f.Choice) + ")"
	}
	return label + ": " + theirs(f.Value)
}

// PromptFacts are what p says, in the order it is read in full; a fact
// the producer left empty is left out.
func PromptFacts(p *session.Prompt) []Fact {
	ev := p.Event
	var facts []Fact
	add := func(label, v string, headline bool) {
		if v = strings.TrimSpace(v); v != "" {
			facts = append(facts, Fact{Label: label, Value: v, Headline: headline})
		}
	}
	if ev.Type == protocol.TypeAwaitingClarify {
		add("Question", ev.Question.Line(), true)
		add("Context", ev.ClarifyContext.Line(), false)
		for i, c := range ev.Choices {
			if v := strings.TrimSpace(c.Label.Line()); v != "" {
				facts = append(facts, Fact{Label: fmt.Sprintf("Choice %d", i+1), Value: v, Choice: strings.TrimSpace(protocol.Line(c.Value))})
			}
		}
		add("Accepted answers", protocol.Line(strings.Join(ev.AcceptedResponseKinds, ", ")), false)
		if ev.HasDefaultResponse {
			// A choice is named by its label, with its value.
			if label, ok := choiceLabel(ev, ev.DefaultResponse.String()); ok {
				facts = append(facts, Fact{Label: "Default answer", Value: label, Choice: ev.DefaultResponse.Line(), Headline: true})
			} else {
				add("Default answer", ev.DefaultResponse.Line(), true)
			}
		}
	} else {
		add("Action", ev.Action.Line(), true)
		add("Consequence", ev.Consequence.Line(), false)
		add("Risk", protocol.Name(ev.RiskLevel), true)
		add("Can be undone", ev.Undo().Words(), false)
		add("Allowed answers", protocol.Line(strings.Join(ev.AllowedReplies, ", ")), false)
		add("Default decision", protocol.Line(ev.DefaultDecision), true)
		if len(ev.ExtraContext) > 0 {
			add("Extra context", protocol.Line(contextWords(ev.ExtraContext)), false)
		}
	}
	add("Summary", ev.Summary("detailed").Line(), false)
	return facts
}

// PromptDetails reads p in full, extra context included, with the time
// left at now. The producer's words are marked as theirs (protocol.Theirs).
func PromptDetails(p *session.Prompt, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Prompt %d, %s", p.Number, PromptKind(p))
	if a := Agent(p.Event); a != "" {
		b.WriteString(" from " + protocol.Theirs(a))
	}
	fmt.Fprintf(&b, ", %s left.", Duration(p.Deadline.Sub(now)))
	for _, f := range PromptFacts(p) {
		b.WriteString(" " + prose.Stop(f.words(protocol.Theirs)))
	}
	return once(b.String())
}

// PendingLine is one sentence of the list of prompts waiting: number,
// kind, time left at now, and what it asks (marked as theirs).
func PendingLine(p *session.Prompt, now time.Time) string {
	return prose.Stop(fmt.Sprintf("Prompt %d, %s, %s left: %s", p.Number, PromptKind(p), Duration(p.Deadline.Sub(now)), protocol.Theirs(PromptTopic(p))))
}

// PendingSummary names the prompts waiting, to follow a sentence saying
// why an answer went nowhere; "" when none waits. What each asks is marked
// as theirs.
func PendingSummary(pending []*session.Prompt) string {
	if len(pending) == 0 {
		return ""
	}
	// Each prompt is a sentence of its own: its topic may end in its own
	// question mark or stop, and nothing is put after that.
	parts := []string{"Waiting for an answer:"}
	for i, p := range pending {
		word := "Prompt"
		if i == 0 {
			word = "prompt"
		}
		parts = append(parts, prose.Stop(fmt.Sprintf("%s %d, %s: %s", word, p.Number, PromptKind(p), protocol.Theirs(PromptTopic(p)))))
	}
	return " " + strings.Join(parts, " ")
}

// contextWords says a prompt's extra context, a JSON value, in words
// rather than as JSON: members as "bill id: B-17", joined by semicolons,
// an object inside another in brackets, lists with commas, true and false
// as yes and no. It is "" when raw is no JSON value.
func contextWords(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	s, err := valueWords(dec, 0)
	if err != nil {
		return ""
	}
	return s
}

// maxContextDepth is how deep contextWords reads; deeper values are "…".
const maxContextDepth = 8

// valueWords reads the next JSON value of dec and says it in words.
func valueWords(dec *json.Decoder, depth int) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch t := tok.(type) {
	case json.Delim:
		var parts []string
		for dec.More() {
			key := ""
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return "", err
				}
				key, _ = k.(string)
			}
			v, err := valueWords(dec, depth+1)
			if err != nil {
				return "", err
			}
			if t == '{' {
				v = words(key) + ": " + v
			}
			parts = append(parts, v)
		}
		if _, err := dec.Token(); err != nil { // the closing bracket
			return "", err
		}
		sep := ", "
		if t == '{' && depth == 0 {
			sep = "; "
		}
		s := strings.Join(parts, sep)
		switch {
		case depth >= maxContextDepth:
			return "…", nil
		case len(parts) == 0:
			return "nothing", nil
		case t == '{' && depth > 0:
			return "(" + s + ")", nil
		}
		return s, nil
	case string:
		return t, nil
	case json.Number:
		return t.String(), nil
	case bool:
		if t {
			return "yes", nil
		}
		return "no", nil
	}
	return "none", nil // null
}
