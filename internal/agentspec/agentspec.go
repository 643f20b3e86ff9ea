// Package agentspec reads the LABEL=ENDPOINT form that gives an agent's
// endpoint a name on a command line (mail=http://127.0.0.1:8081).
package agentspec

import (
	"fmt"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// MaxLabel is the longest label, in bytes.
const MaxLabel = 64

// Spec is one agent named on the command line.
type Spec struct {
	Label    string // "" when none was given
	Endpoint string
}

// ValidLabel reports whether s may be a label: 1 to MaxLabel ASCII
// letters, digits, '-' and '_'. Labels are printed before every line of
// their agent, so they can carry nothing else. aaep-listen and
// aaep-capture (where a label names a connection) hold the same rule.
func ValidLabel(s string) bool {
	if s == "" || len(s) > MaxLabel {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// CheckLabel is ValidLabel with the reason, in words, when s is not a
// label; s is sanitized in it.
func CheckLabel(s string) error {
	if ValidLabel(s) {
		return nil
	}
	return fmt.Errorf("label %q must be 1 to %d letters, digits, - or _", protocol.Name(s), MaxLabel)
}

// Parse reads arg as LABEL=ENDPOINT, or as a bare ENDPOINT when what comes
// before its first '=' is not a label (an endpoint such as
// http://host/?a=b, or file:x=y, has a ':' or '/' there). A label with
// nothing after its '=' is an error.
func Parse(arg string) (Spec, error) {
	label, endpoint, ok := strings.Cut(arg, "=")
	if !ok || !ValidLabel(label) {
		return Spec{Endpoint: arg}, nil
	}
	if endpoint == "" {
		return Spec{}, fmt.Errorf("%q names the agent %s but gives no endpoint after the '='", arg, label)
	}
	return Spec{Label: label, Endpoint: endpoint}, nil
}

// ParseAll reads every argument with Parse; two agents may not have the
// same label, letter case aside.
func ParseAll(args []string) ([]Spec, error) {
	specs := make([]Spec, 0, len(args))
	seen := map[string]bool{}
	for _, a := range args {
		s, err := Parse(a)
		if err != nil {
			return nil, err
		}
		if s.Label != "" { // commands name agents in any letter case
			if seen[strings.ToLower(s.Label)] {
				return nil, fmt.Errorf("two agents are labelled %s; give each its own label", s.Label)
			}
			seen[strings.ToLower(s.Label)] = true
		}
		specs = append(specs, s)
	}
	return specs, nil
}
