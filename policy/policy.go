package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"

	"github.com/aaep-term/aaep-term/protocol"
)

// Verdicts a rule may give.
const (
	Ask    = "ask"    // ask the user, as without a policy
	Accept = "accept" // accept the confirmation without asking
	Reject = "reject" // reject the confirmation without asking
)

// Prompt types a rule may name.
const (
	TypeConfirmation  = "confirmation"
	TypeClarification = "clarification"
)

// maxRules bounds a policy file, so a mistaken file cannot slow every prompt.
const maxRules = 1000

// Rule is one line of a policy: when every matcher given fits a prompt, its
// Decision applies. Matchers left out match anything.
type Rule struct {
	// Name identifies the rule in announcements, the audit log and the
	// reply's decided_by ("auto:policy:NAME"): letters, digits, '.', '_', '-'.
	Name string `json:"name"`
	// Tool is a glob (as path.Match: *, ?, [a-z]) on the tool the prompt is
	// about. A prompt naming no tool matches only when Tool is empty.
	Tool string `json:"tool,omitempty"`
	// Risk lists the risk levels matched: "low", "medium", "high". A prompt
	// without a risk level matches only when Risk is empty.
	Risk []string `json:"risk,omitempty"`
	// Irreversible, when given, matches prompts that cannot (true) or can
	// (false) be undone. A prompt that does not say counts as irreversible.
	Irreversible *bool `json:"irreversible,omitempty"`
	// Agent is a glob on the producer's agent_id: what the producer says it
	// is, which any producer can say. It narrows a rule; it never alone
	// decides whose prompts a rule accepts (see Label and Endpoint).
	Agent string `json:"agent,omitempty"`
	// Label is a glob on the label the user gave the agent's endpoint
	// (LABEL=ENDPOINT, or an agents file entry's label); an agent without
	// one never matches.
	Label string `json:"label,omitempty"`
	// Endpoint is the agent's endpoint exactly as the user gave it.
	Endpoint string `json:"endpoint,omitempty"`
	// Type is "confirmation" or "clarification".
	Type string `json:"type,omitempty"`
	// Decision is "ask", "accept" or "reject".
	Decision string `json:"decision"`
	// AllowIrreversibleHigh must be true on an accepting rule that could
	// match an irreversible high-risk action; such acceptances are announced
	// every time.
	AllowIrreversibleHigh bool `json:"allow_irreversible_high,omitempty"`
}

// Policy is an ordered list of rules: the first that matches decides.
type Policy struct {
	Rules []Rule `json:"rules"`
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Load reads and checks the policy file at name.
func Load(name string) (*Policy, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read the policy file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("read the policy file: %w", err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("policy file %s is larger than %d bytes; it is not a policy", name, maxFile)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("policy file %s: %w", name, err)
	}
	return p, nil
}

// maxFile bounds a policy file: thousands of rules, far less than a device
// such as /dev/zero, which is refused at once instead of read forever.
const maxFile = 1 << 20

// Parse reads a policy from its JSON form and checks every rule. Its errors
// name the rule and say what to change.
func Parse(data []byte) (*Policy, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Policy
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("not a policy: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not a policy: more after the first JSON object")
	}
	if len(p.Rules) > maxRules {
		return nil, fmt.Errorf("%d rules; at most %d are allowed", len(p.Rules), maxRules)
	}
	seen := make(map[string]bool, len(p.Rules))
	for i := range p.Rules {
		r := &p.Rules[i]
		if err := r.check(); err != nil {
			if r.Name != "" && namePattern.MatchString(r.Name) {
				return nil, fmt.Errorf("rule %q: %w", r.Name, err)
			}
			return nil, fmt.Errorf("rule %d: %w", i+1, err)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("rule %q: the name is used twice; each rule needs its own", r.Name)
		}
		seen[r.Name] = true
	}
	return &p, nil
}

func (r *Rule) check() error {
	if !namePattern.MatchString(r.Name) {
		return errors.New(`"name" is required: 1 to 64 letters, digits, '.', '_' or '-'`)
	}
	for _, g := range []struct{ field, glob string }{{"tool", r.Tool}, {"agent", r.Agent}, {"label", r.Label}} {
		if _, err := path.Match(g.glob, ""); err != nil {
			return fmt.Errorf("%q is not a valid pattern: %q", g.field, g.glob)
		}
	}
	for _, risk := range r.Risk {
		if risk != "low" && risk != "medium" && risk != "high" {
			return fmt.Errorf(`"risk" may list "low", "medium" and "high", not %q`, risk)
		}
	}
	switch r.Type {
	case "", TypeConfirmation, TypeClarification:
	default:
		return fmt.Errorf(`"type" must be "confirmation" or "clarification", not %q`, r.Type)
	}
	switch r.Decision {
	case Ask, Reject:
	case Accept:
		if r.claimedOnly() {
			return fmt.Errorf(`it accepts the prompts of any producer that says its agent_id is %q, as any producer can; `+
				`add the "label" you gave that agent or its "endpoint"`, r.Agent)
		}
		if r.canMatchIrreversibleHigh() && !r.AllowIrreversibleHigh {
			return errors.New(`it accepts and could match an action that cannot be undone and is high risk; ` +
				`narrow it with "irreversible": false or a "risk" list without "high", ` +
				`or, to accept such actions without asking, set "allow_irreversible_high": true`)
		}
	default:
		return fmt.Errorf(`"decision" must be "ask", "accept" or "reject", not %q`, r.Decision)
	}
	if r.Type == TypeClarification && r.Decision != Ask {
		return errors.New(`questions are always asked: a "clarification" rule can only "ask"`)
	}
	return nil
}

// claimedOnly reports whether r picks its agent only by what the producer
// says it is (its agent_id), not by what the user configured.
func (r *Rule) claimedOnly() bool {
	return r.Agent != "" && r.Label == "" && r.Endpoint == ""
}

// canMatchIrreversibleHigh reports whether r could match an irreversible
// high-risk confirmation (or one whose risk or reversibility is not given).
func (r *Rule) canMatchIrreversibleHigh() bool {
	return (len(r.Risk) == 0 || slices.Contains(r.Risk, "high")) &&
		(r.Irreversible == nil || *r.Irreversible) && r.Type != TypeClarification
}

// Facts are what a rule, and the gate, look at in a prompt.
type Facts struct {
	Type  string // TypeConfirmation or TypeClarification
	Tool  string // the tool it is about; "" when unknown
	Agent string // the producer's agent_id, as it says
	// Configured is the agent as the user configured it; a Gate sets it
	// (see Gate.For), never the prompt.
	Configured   Configured
	Session      string // the session_id, within the agent
	Risk         string // "low", "medium", "high", or "" when not given (or not one of those)
	Undo         protocol.Undo
	Irreversible bool // Undo is UndoCannot or UndoUnsaid: cannot be undone, or does not say
}

// FactsOf reads the facts of a confirmation or clarification event; tool is
// the tool it is about when the event does not name one itself. Whether it
// can be undone is read by protocol.Event.Undo, as the announcements read
// it; a risk level other than low, medium or high counts as not given.
func FactsOf(ev *protocol.Event, tool string) Facts {
	f := Facts{Type: TypeConfirmation, Tool: ev.Tool, Agent: ev.Producer.AgentID, Session: ev.SessionID, Undo: ev.Undo()}
	if ev.Type == protocol.TypeAwaitingClarify {
		f.Type = TypeClarification
	}
	if f.Tool == "" {
		f.Tool = tool
	}
	switch ev.RiskLevel {
	case "low", "medium", "high":
		f.Risk = ev.RiskLevel
	}
	f.Irreversible = f.Undo == protocol.UndoCannot || f.Undo == protocol.UndoUnsaid // not said: assume the worst
	return f
}

// HighStakes reports whether f is an action that cannot be undone and is
// high risk (or of unknown risk).
func (f Facts) HighStakes() bool {
	return f.Type == TypeConfirmation && f.Irreversible && (f.Risk == "high" || f.Risk == "")
}

// ruleDecision is what a policy says about one prompt.
type ruleDecision struct {
	Verdict string // Ask, Accept or Reject
	Rule    string // the rule that decided; "" when none matched
}

// decide returns the verdict of the first rule matching f; without one, Ask.
// An accepting rule never decides a high-stakes prompt unless it allows it.
func (p *Policy) decide(f Facts) ruleDecision {
	if p == nil {
		return ruleDecision{Verdict: Ask}
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		if !r.matches(f) {
			continue
		}
		if r.Decision == Accept && (f.HighStakes() && !r.AllowIrreversibleHigh || r.claimedOnly()) {
			continue // Parse refuses such rules; a hand-built Policy must not slip
		}
		return ruleDecision{Verdict: r.Decision, Rule: r.Name}
	}
	return ruleDecision{Verdict: Ask}
}

func (r *Rule) matches(f Facts) bool {
	typ := r.Type
	if typ == "" {
		typ = TypeConfirmation // questions are only ever matched by name
	}
	switch {
	case typ != f.Type:
		return false
	case r.Tool != "" && !glob(r.Tool, f.Tool):
		return false
	case r.Agent != "" && !glob(r.Agent, f.Agent):
		return false
	case r.Label != "" && !glob(r.Label, f.Configured.Label):
		return false
	case r.Endpoint != "" && r.Endpoint != f.Configured.Endpoint:
		return false
	case len(r.Risk) > 0 && !slices.Contains(r.Risk, f.Risk):
		return false
	case r.Irreversible != nil && *r.Irreversible != f.Irreversible:
		return false
	}
	return true
}

// glob matches s against pattern; an empty s never matches.
func glob(pattern, s string) bool {
	ok, _ := path.Match(pattern, s)
	return ok && s != ""
}
