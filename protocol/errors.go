package protocol

import (
	"fmt"
	"strings"
)

// Problem is one way a message breaks a schema or a limit.
type Problem struct {
	Pointer string // JSON pointer to the offending value; "" is the whole message
	Message string // what is wrong, in English; producer text in it is not sanitized
	Code    string // the kind of problem, for those told apart: ProblemUndefinedMember, ProblemLimit; "" for the others
}

// Codes of problems that readers tell apart from other schema problems.
const (
	// ProblemUndefinedMember: a member at the top level of a core event that
	// its type does not define. Extension data belongs in "extensions"
	// (spec section 7.2).
	ProblemUndefinedMember = "undefined-member"
	// ProblemLimit: the message is over a soft limit (spec section 3.7).
	ProblemLimit = "limit"
)

// ValidationError lists every problem found in a message that could still
// be decoded. The event returned with it may be announced with care.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(event)"
		}
		parts[i] = ptr + ": " + p.Message
	}
	return "protocol: invalid message: " + strings.Join(parts, "; ")
}

// SyntaxError reports input that is not a JSON object at all.
type SyntaxError struct {
	Offset int64 // byte offset of the problem, when known
	Msg    string
}

func (e *SyntaxError) Error() string {
	if e.Offset > 0 {
		return fmt.Sprintf("protocol: not valid JSON at byte %d: %s", e.Offset, e.Msg)
	}
	return "protocol: not valid JSON: " + e.Msg
}

// LimitError reports a message too large or too deeply nested to decode at
// all (beyond [Limits.HardMaxBytes] or [Limits.HardMaxDepth]).
type LimitError struct {
	What  string // "size" or "depth"
	Value int
	Limit int
}

func (e *LimitError) Error() string {
	if e.What == "depth" {
		return fmt.Sprintf("protocol: message nested deeper than %d levels; not decoded", e.Limit)
	}
	return fmt.Sprintf("protocol: message of %d bytes is over the %d-byte limit; not decoded", e.Value, e.Limit)
}
