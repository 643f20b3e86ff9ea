// honored.go: what a producer's honored_capabilities may grant (never more
// than was asked, spec §5.4.4), and what it changed, in words.

package session

import (
	"fmt"
	"github.com/aaep-term/aaep-term/internal/prose"
	"slices"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// Violation is one way the honored capabilities grant more than the
// request asked for.
type Violation struct {
	Field   string // the capability, as the spec spells it
	Message string // a plain sentence, already sanitized
}

// Default capabilities the spec assumes when a request leaves them out.
var (
	defaultLanguages = []string{"en-US"}
	defaultCoalesce  = []string{"sentence", "completion"}
)

// CheckHonored lists every way honored is more permissive than requested:
// a higher rate (or none where one was asked), languages or boundaries
// that were not asked for, looser event filters, replies or conformance
// levels the subscriber did not declare. No violation means honored ⊆
// requested.
func CheckHonored(requested, honored protocol.Capabilities) []Violation {
	var v []Violation
	add := func(field, format string, args ...any) {
		v = append(v, Violation{Field: field, Message: oneLine(fmt.Sprintf(format, args...))})
	}
	if r := requested.MaxEventsPerSecond; r > 0 {
		switch h := honored.MaxEventsPerSecond; {
		case h == 0:
			add("max_events_per_second", "The producer sets no rate limit, but you asked for at most %d events per second.", r)
		case h > r:
			add("max_events_per_second", "The producer grants %d events per second, more than the %d you asked for.", h, r)
		}
	}
	if extra := notIn(honored.Languages, orDefault(requested.Languages, defaultLanguages), strings.EqualFold); len(extra) > 0 {
		add("languages", "The producer will speak %s, which you did not ask for.", strings.Join(extra, ", "))
	}
	if extra := notIn(honored.CoalesceBoundaries, orDefault(requested.CoalesceBoundaries, defaultCoalesce), eq); len(extra) > 0 {
		add("coalesce_boundaries", "The producer will cut streamed output at %s, which you did not ask for.", strings.Join(extra, ", "))
	}
	if f := requested.EventFilters; f != nil {
		var hi, he []string
		if honored.EventFilters != nil {
			hi, he = honored.EventFilters.Include, honored.EventFilters.Exclude
		}
		if len(f.Include) > 0 {
			if len(hi) == 0 {
				hi = []string{"*"} // no include filter lets everything in
			}
			if extra := notIn(hi, f.Include, covers); len(extra) > 0 {
				add("event_filters", "The producer's filters let in %s, beyond the types you included.", strings.Join(extra, ", "))
			}
		}
		if missing := notIn(f.Exclude, he, covers); len(missing) > 0 {
			add("event_filters", "The producer's filters drop your exclusion of %s.", strings.Join(missing, ", "))
		}
	}
	if yes(honored.SupportsConfirmationReply) && !yes(requested.SupportsConfirmationReply) {
		add("supports_confirmation_reply", "The producer expects you to answer confirmations, which you said you cannot.")
	}
	if yes(honored.SupportsClarificationReply) && !yes(requested.SupportsClarificationReply) {
		add("supports_clarification_reply", "The producer expects you to answer questions, which you said you cannot.")
	}
	if extra := notIn(honored.SupportedConformanceLevels, orDefault(requested.SupportedConformanceLevels, []int{1}), eq); len(extra) > 0 {
		add("supported_conformance_levels", "The producer claims conformance levels %v, which you did not offer.", extra)
	}
	return v
}

// Changes says in plain words where the honored terms are less than the
// request: the user asked for these, and the producer gives that.
func Changes(requested, honored protocol.Capabilities) []string {
	var c []string
	if r, h := requested.MaxEventsPerSecond, honored.MaxEventsPerSecond; h > 0 && (r == 0 || h < r) {
		if r == 0 {
			c = append(c, fmt.Sprintf("Producer allows %s per second; you asked for no limit.", prose.Count(h, "event", "events")))
		} else {
			c = append(c, fmt.Sprintf("Producer allows %s per second; you asked for %d.", prose.Count(h, "event", "events"), r))
		}
	}
	if r, h := requested.PreferredVerbosity, honored.PreferredVerbosity; r != "" && h != "" && r != h {
		c = append(c, fmt.Sprintf("Producer writes at %s verbosity; you asked for %s.", h, r))
	}
	if r, h := requested.Languages, honored.Languages; len(r) > 0 && len(h) > 0 && !slices.EqualFunc(r, h, strings.EqualFold) {
		c = append(c, fmt.Sprintf("Producer speaks only %s; you asked for %s.", prose.List(h), prose.List(r)))
	}
	if r, h := requested.CoalesceBoundaries, honored.CoalesceBoundaries; len(r) > 0 && len(h) > 0 && !slices.Equal(r, h) {
		c = append(c, fmt.Sprintf("Producer sends streamed output in pieces at %s only; you asked for %s.", boundaryWords(h), boundaryWords(r)))
	}
	if r, h := requested.CognitiveLoad, honored.CognitiveLoad; r != "" && h != "" && r != h {
		c = append(c, fmt.Sprintf("Producer assumes %s cognitive load; you asked for %s.", h, r))
	}
	for i, s := range c {
		c[i] = oneLine(s)
	}
	return c
}

// HeardChanges is the part of Changes that changes what the user hears: a
// cap on events per second the user did not ask for, and where streamed
// output is cut, are left out (what comes is told either way, streamed
// output in sentences).
func HeardChanges(requested, honored protocol.Capabilities) []string {
	if requested.MaxEventsPerSecond == 0 {
		requested.MaxEventsPerSecond = honored.MaxEventsPerSecond
	}
	requested.CoalesceBoundaries = honored.CoalesceBoundaries
	return Changes(requested, honored)
}

// covers reports whether filter pattern p matches every type pattern q
// matches: "aaep:agent.*" covers "aaep:agent.tool.*" and
// "aaep:agent.tool.invoked"; "*" covers everything.
func covers(p, q string) bool {
	if p == q {
		return true
	}
	pre, ok := strings.CutSuffix(p, "*")
	return ok && strings.HasPrefix(strings.TrimSuffix(q, "*"), pre)
}

// Match reports whether an event type matches a filter pattern.
func Match(pattern, typ string) bool {
	if pre, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(typ, pre)
	}
	return pattern == typ
}

// notIn lists the members of got that no member of allowed admits.
func notIn[T any](got, allowed []T, admits func(a, g T) bool) []T {
	var out []T
	for _, g := range got {
		if !slices.ContainsFunc(allowed, func(a T) bool { return admits(a, g) }) {
			out = append(out, g)
		}
	}
	return out
}

func orDefault[T any](s, def []T) []T {
	if len(s) == 0 {
		return def
	}
	return s
}

func eq[T comparable](a, b T) bool { return a == b }

func yes(b *bool) bool { return b != nil && *b }

// boundaryWords says coalesce boundaries the way a person would: "sentence
// ends, paragraph ends and the end of the output".
func boundaryWords(bs []string) string {
	words := make([]string, len(bs))
	for i, b := range bs {
		switch b {
		case "sentence":
			words[i] = "sentence ends"
		case "paragraph":
			words[i] = "paragraph ends"
		case "completion":
			words[i] = "the end of the output"
		default:
			words[i] = protocol.Sanitize(b)
		}
	}
	return prose.List(words)
}
