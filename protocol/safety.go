package protocol

// This file holds the rules across a session's events that the live
// listener (package session) and the capture checker (package capture) both
// apply: one code, one spec section and one decision for each, so the two
// never disagree about a stream.

const (
	// RuleUnconfirmedIrreversible is the code of the rule that a tool call
	// that cannot be undone comes after a confirmation for it.
	RuleUnconfirmedIrreversible = "unconfirmed-irreversible"
	// SectionUnconfirmedIrreversible is the spec section stating it.
	SectionUnconfirmedIrreversible = "4.3.1"
)

// UnconfirmedIrreversible decides RuleUnconfirmedIrreversible for a
// tool.invoked: the rule is broken when the call cannot be undone, no
// confirmation covering it (see [Covers]) came before it, and its session
// was seen from its start (of a session joined mid-way, the confirmation may
// have come before).
func UnconfirmedIrreversible(irreversible, confirmed, fromStart bool) bool {
	return irreversible && !confirmed && fromStart
}

// Covers reports whether confirmation c may be the one asked for tool call
// t: both name the same tool call, or else the same correlation, or else the
// same tool; or c names no action at all.
func Covers(c, t *Event) bool {
	return SameAction(t, c) || !NamesAction(c)
}

// SameAction reports whether tool call t and confirmation c name the same
// action: by tool_call_id when both have one, else by correlation_id, else
// by tool.
func SameAction(t, c *Event) bool {
	switch {
	case t.ToolCallID != "" && c.ToolCallID != "":
		return t.ToolCallID == c.ToolCallID
	case t.CorrelationID != "" && c.CorrelationID != "":
		return t.CorrelationID == c.CorrelationID
	case t.Tool != "" && c.Tool != "":
		return t.Tool == c.Tool
	}
	return false
}

// NamesAction reports whether confirmation c names the action it is about.
func NamesAction(c *Event) bool {
	return c.ToolCallID != "" || c.CorrelationID != "" || c.Tool != ""
}
