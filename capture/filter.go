// filter.go: choosing which event types a recording keeps.

package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// TypeFilter chooses the events a recording keeps by their type. The zero
// TypeFilter keeps everything.
//
// It is written as comma-separated glob patterns (path.Match syntax); a
// pattern starting with "-" excludes. Patterns are read as
// protocol.ExpandType reads them, as aaep-listen's --include does: "tool.*",
// "agent.tool.*" and "aaep:agent.tool.*" all match aaep:agent.tool.invoked.
// An event is kept when it matches an including pattern (or there is none)
// and no excluding one.
//
// Messages that are not events (the handshake, replies) and critical events
// (session.errored, awaiting.*, handoff.requested, or urgency critical) are
// always kept: a recording never loses what a person had to act on.
type TypeFilter struct {
	expr             string
	include, exclude []string
}

// ParseTypeFilter compiles expr. Errors name the pattern at fault.
func ParseTypeFilter(expr string) (TypeFilter, error) {
	f := TypeFilter{expr: strings.TrimSpace(expr)}
	for _, p := range strings.Split(f.expr, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		neg := strings.HasPrefix(p, "-")
		p = strings.TrimSpace(strings.TrimPrefix(p, "-"))
		if p == "" {
			if neg {
				return TypeFilter{}, fmt.Errorf("filter: a lone - names no type")
			}
			continue
		}
		p = protocol.ExpandType(p)
		if _, err := path.Match(p, ""); err != nil {
			return TypeFilter{}, fmt.Errorf("filter: %q is not a valid pattern: %w", p, err)
		}
		if neg {
			f.exclude = append(f.exclude, p)
		} else {
			f.include = append(f.include, p)
		}
	}
	return f, nil
}

// String is the expression as given.
func (f TypeFilter) String() string { return f.expr }

// Empty reports whether f keeps everything.
func (f TypeFilter) Empty() bool { return len(f.include) == 0 && len(f.exclude) == 0 }

// Keep reports whether the message msg (JSON) is to be recorded.
func (f TypeFilter) Keep(msg []byte) bool {
	if f.Empty() {
		return true
	}
	typ := protocol.PeekType(msg)
	if typ == "" || !strings.Contains(typ, ":") {
		return true // not an event: handshake, reply, or unreadable
	}
	if protocol.CriticalType(typ) || urgencyCritical(msg) {
		return true
	}
	return f.Match(typ)
}

// Match reports whether the event type typ passes the patterns alone.
func (f TypeFilter) Match(typ string) bool {
	typ = protocol.ExpandType(strings.ToLower(typ))
	matches := func(pats []string) bool {
		for _, p := range pats {
			if ok, _ := path.Match(p, typ); ok {
				return true
			}
		}
		return false
	}
	if len(f.include) > 0 && !matches(f.include) {
		return false
	}
	return !matches(f.exclude)
}

// urgencyCritical reports whether msg says "urgency":"critical" at its top
// level, without decoding the rest.
func urgencyCritical(msg []byte) bool {
	if !bytes.Contains(msg, []byte(`"critical"`)) {
		return false
	}
	var m struct {
		Urgency string `json:"urgency"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Urgency == string(protocol.UrgencyCritical)
}
