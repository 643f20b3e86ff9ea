// typepattern.go: event types and patterns of them as people write them.

package protocol

import (
	"path"
	"strings"
)

// CoreTypes are the core event types, in the order the spec lists them.
var CoreTypes = []string{
	TypeSessionStarted, TypeSessionCompleted, TypeSessionErrored, TypeSessionCancelled,
	TypeStateChanged, TypeProgressUpdated, TypeToolInvoked, TypeToolCompleted,
	TypeOutputStreaming, TypeAwaitingConfirmation, TypeAwaitingClarify, TypeHandoffRequested,
}

// ExpandType completes an event type, or a pattern of types, written short:
// a core type may be written without "aaep:" and without "agent.", so
// "tool.*", "agent.tool.*" and "aaep:agent.tool.*" are all
// "aaep:agent.tool.*". Anything with a namespace (a colon) and a pattern
// starting with a wildcard ("*", "*.completed") are left as they are. It is
// the one reading of short types for every filter: aaep-listen's
// --include/--exclude, "set include", the config file and aaep-capture's
// --filter.
func ExpandType(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || strings.Contains(p, ":") || strings.ContainsAny(p[:1], "*?[") {
		return p
	}
	if !strings.HasPrefix(p, "agent.") {
		p = "agent." + p
	}
	return "aaep:" + p
}

// MatchesCoreType reports whether pattern (expanded, path.Match syntax)
// matches any core event type. A pattern in another namespace cannot be
// judged and counts as matching.
func MatchesCoreType(pattern string) bool {
	if !strings.HasPrefix(pattern, "aaep:") && !strings.ContainsAny(pattern[:min(1, len(pattern))], "*?[") {
		return true // an extension's types are not known here
	}
	for _, t := range CoreTypes {
		if ok, _ := path.Match(pattern, t); ok {
			return true
		}
	}
	return false
}
