package tui

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Filter is a compiled filter expression. The zero Filter matches everything.
//
// An expression is space-separated terms, all of which must match:
//
//	type:GLOB      event type, with or without "aaep:" and "aaep:agent." (type:tool.*)
//	session:GLOB   session id (a prefix is enough: session:s-12)
//	urgency:LIST   critical, normal, background or diagnostic, comma-separated
//	tool:GLOB      tool name of tool events
//	kind:WORD      announcement kind (confirmation, output, diagnostic, …)
//	agent:GLOB     the agent, by its label or name as the list shows it (agent:mail)
//	WORD           text anywhere in the line, ignoring case
//	-TERM          any term negated
type Filter struct {
	expr  string
	terms []term
}

type term struct {
	field string // "", "type", "session", "urgency", "tool", "kind", "agent"
	pat   string // lower case
	glob  bool
	neg   bool
	list  []string // urgency: the words listed
}

// ParseFilter compiles expr. Errors name the term at fault.
func ParseFilter(expr string) (Filter, error) {
	f := Filter{expr: strings.TrimSpace(expr)}
	for _, w := range strings.Fields(f.expr) {
		t := term{}
		if len(w) > 1 && w[0] == '-' {
			t.neg, w = true, w[1:]
		}
		if field, pat, ok := strings.Cut(w, ":"); ok && isField(field) {
			t.field, w = strings.ToLower(field), pat
			if w == "" {
				return Filter{}, fmt.Errorf("filter term %q needs a value after the colon", field+":")
			}
		}
		t.pat = strings.ToLower(w)
		t.glob = strings.ContainsAny(t.pat, "*?[")
		if t.glob {
			if _, err := path.Match(t.pat, ""); err != nil {
				return Filter{}, fmt.Errorf("filter term %q is not a valid pattern: %w", w, err)
			}
		}
		if t.field == "urgency" {
			t.list = strings.Split(t.pat, ",")
			for _, u := range t.list {
				switch u {
				case "critical", "normal", "background", "diagnostic":
				default:
					return Filter{}, fmt.Errorf("urgency %q is not one of critical, normal, background, diagnostic", u)
				}
			}
		}
		f.terms = append(f.terms, t)
	}
	return f, nil
}

func isField(s string) bool {
	switch strings.ToLower(s) {
	case "type", "session", "urgency", "tool", "kind", "agent":
		return true
	}
	return false
}

// String is the expression as typed.
func (f Filter) String() string { return f.expr }

// Empty reports whether f matches everything.
func (f Filter) Empty() bool { return len(f.terms) == 0 }

func (f Filter) match(e *entry) bool {
	for i := range f.terms {
		if f.terms[i].match(e) == f.terms[i].neg {
			return false
		}
	}
	return true
}

func (t *term) match(e *entry) bool {
	switch t.field {
	case "":
		return strings.Contains(e.hay, t.pat)
	case "type":
		typ := strings.ToLower(e.typ())
		short := strings.TrimPrefix(typ, "aaep:")
		return t.matchValue(typ) || t.matchValue(short) || t.matchValue(strings.TrimPrefix(short, "agent."))
	case "session":
		id := strings.ToLower(e.SessionID)
		if t.glob {
			return t.matchValue(id)
		}
		return strings.HasPrefix(id, t.pat)
	case "urgency":
		return slices.Contains(t.list, e.urgency())
	case "tool":
		return t.matchValue(strings.ToLower(e.tool()))
	case "kind":
		return t.matchValue(strings.ToLower(e.Kind))
	case "agent":
		return t.matchValue(strings.ToLower(e.Agent))
	}
	return false
}

func (t *term) matchValue(v string) bool {
	if !t.glob {
		return v == t.pat
	}
	ok, _ := path.Match(t.pat, v)
	return ok
}
