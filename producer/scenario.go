package producer

// This file holds the scenario format: types, JSON decoding and the checks
// that keep a scenario's sessions well formed.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// Scenario is one scripted agent session. Its JSON form is
//
//	{"name": "happy", "title": "…", "order": 1,
//	 "agent": {"agent_id": "…", "agent_name": "…", "agent_version": "…"},
//	 "language": "en-US", "direction": "ltr",
//	 "steps": [{"after_ms": 300, "event": {"type": "agent.session.started", …}}, …]}
type Scenario struct {
	// Name is short and unique, such as "happy"; it names the scenario on
	// command lines.
	Name string `json:"name"`
	// Title says in a few words what the session shows.
	Title string `json:"title"`
	// Order sorts the scenarios LoadScenarios returns (then Name does).
	Order int `json:"order,omitempty"`
	// Agent is the envelope's producer object for every event.
	Agent Agent `json:"agent"`
	// Language is the BCP 47 tag of the session's text; empty means "en-US".
	Language string `json:"language,omitempty"`
	// Direction is the text direction, "ltr", "rtl" or "auto"; empty means
	// "ltr".
	Direction string `json:"direction,omitempty"`
	// Steps are played in order. The first event is agent.session.started
	// and every path through the prompts ends with one terminal event.
	Steps []Step `json:"steps"`
}

// Agent identifies the producer in an event's envelope.
type Agent struct {
	ID      string `json:"agent_id"`
	Name    string `json:"agent_name,omitempty"`
	Version string `json:"agent_version,omitempty"`
}

// Step is one event of a scenario, emitted AfterMS milliseconds (times
// Options.Speed) after the previous one.
//
// A confirmation step continues with OnAccept or OnReject, then with the
// steps after it; on timeout its default_decision picks the branch. A
// clarification step continues with OnAnswer, where the strings "{answer}"
// (the chosen choice's label, or the answer itself) and "{answer_value}" (the
// value sent) are replaced; on timeout it continues with OnTimeout when
// given, else with OnAnswer for its default_response, else with nothing.
type Step struct {
	AfterMS   int     `json:"after_ms"`
	Event     Payload `json:"event"`
	OnAccept  []Step  `json:"on_accept,omitempty"`
	OnReject  []Step  `json:"on_reject,omitempty"`
	OnAnswer  []Step  `json:"on_answer,omitempty"`
	OnTimeout []Step  `json:"on_timeout,omitempty"`
}

// Payload is an event without its envelope: the type and the payload fields
// in the order they were written. The producer adds the envelope, and the
// reply_token of prompts and the position of streamed chunks when missing.
type Payload struct {
	// Type is the compact form, such as "aaep:agent.tool.invoked". In JSON
	// the "aaep:" prefix may be left out, or the full type URI written.
	Type   string
	Fields []Field
}

// Field is one payload field; Value is compact JSON.
type Field struct {
	Name  string
	Value json.RawMessage
}

// Get returns the value of the named field.
func (p Payload) Get(name string) (json.RawMessage, bool) {
	for _, f := range p.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return nil, false
}

// str returns the named field when it is a JSON string.
func (p Payload) str(name string) (string, bool) {
	v, ok := p.Get(name)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// UnmarshalJSON reads an object, keeping the order of its fields.
func (p *Payload) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("an event must be a JSON object")
	}
	*p = Payload{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("field %q: %w", name, err)
		}
		if seen[name] {
			return fmt.Errorf("field %q appears twice", name)
		}
		seen[name] = true
		if name == "type" {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return errors.New(`"type" must be a string`)
			}
			p.Type = normalizeType(s)
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return err
		}
		p.Fields = append(p.Fields, Field{Name: name, Value: buf.Bytes()})
	}
	return nil
}

// MarshalJSON writes the type first, then the fields in order.
func (p Payload) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	b.Write(jsonString(p.Type))
	for _, f := range p.Fields {
		b.WriteByte(',')
		b.Write(jsonString(f.Name))
		b.WriteByte(':')
		b.Write(f.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// typeURIPrefix is the full-URI form of the core types' namespace.
const typeURIPrefix = "https://aaep-protocol.org/types/"

func normalizeType(s string) string {
	switch {
	case strings.HasPrefix(s, typeURIPrefix):
		return "aaep:" + strings.TrimPrefix(s, typeURIPrefix)
	case strings.HasPrefix(s, "agent."):
		return "aaep:" + s
	}
	return s
}

// envelopeFields may not appear in a step's event: the producer writes them.
var envelopeFields = []string{
	"@context", "aaep_version", "event_id", "session_id", "sequence_number",
	"timestamp", "producer", "verbosity", "urgency", "localization_hints",
	"correlation_id", "extensions", "reply_token",
}

func isTerminal(typ string) bool {
	return typ == protocol.TypeSessionCompleted || typ == protocol.TypeSessionErrored ||
		typ == protocol.TypeSessionCancelled
}

// ParseScenario decodes and checks one scenario file.
func ParseScenario(data []byte) (Scenario, error) {
	var sc Scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return Scenario{}, fmt.Errorf("producer: scenario: %w", err)
	}
	if dec.More() {
		return Scenario{}, errors.New("producer: scenario: data after the scenario object")
	}
	if sc.Language == "" {
		sc.Language = "en-US"
	}
	if sc.Direction == "" {
		sc.Direction = "ltr"
	}
	if err := sc.check(); err != nil {
		if sc.Name != "" {
			return Scenario{}, fmt.Errorf("producer: scenario %q: %w", sc.Name, err)
		}
		return Scenario{}, fmt.Errorf("producer: scenario: %w", err)
	}
	return sc, nil
}

// LoadScenarios reads every dir/*.json file of fsys as a scenario and returns
// them sorted by Order, then Name. Names must be unique.
func LoadScenarios(fsys fs.FS, dir string) ([]Scenario, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("producer: list scenarios: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("producer: no scenario files (*.json) in %s", dir)
	}
	var all []Scenario
	names := map[string]string{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("producer: %w", err)
		}
		sc, err := ParseScenario(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if other, ok := names[sc.Name]; ok {
			return nil, fmt.Errorf("producer: scenario name %q is used by %s and %s", sc.Name, other, f)
		}
		names[sc.Name] = f
		all = append(all, sc)
	}
	slices.SortStableFunc(all, func(a, b Scenario) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), strings.Compare(a.Name, b.Name))
	})
	return all, nil
}

// SelectScenarios returns the named scenarios of all, in the order named.
func SelectScenarios(all []Scenario, names []string) ([]Scenario, error) {
	var out []Scenario
	for _, n := range names {
		i := slices.IndexFunc(all, func(s Scenario) bool { return s.Name == n })
		if i < 0 {
			known := make([]string, len(all))
			for j, s := range all {
				known[j] = s.Name
			}
			return nil, fmt.Errorf("producer: no scenario named %q (there are: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

func (sc *Scenario) check() error {
	switch {
	case sc.Name == "" || strings.ContainsFunc(sc.Name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}):
		return fmt.Errorf("name %q: want lower-case letters, digits, '-' and '_'", sc.Name)
	case sc.Agent.ID == "":
		return errors.New("agent.agent_id is missing")
	case !isLanguageTag(sc.Language):
		return fmt.Errorf("language %q is not a BCP 47 tag", sc.Language)
	case sc.Direction != "ltr" && sc.Direction != "rtl" && sc.Direction != "auto":
		return fmt.Errorf(`direction %q: want "ltr", "rtl" or "auto"`, sc.Direction)
	case len(sc.Steps) == 0:
		return errors.New("no steps")
	case sc.Steps[0].Event.Type != protocol.TypeSessionStarted:
		return fmt.Errorf("the first event is %s, not %s", sc.Steps[0].Event.Type, protocol.TypeSessionStarted)
	}
	if err := checkSteps(sc.Steps, "steps"); err != nil {
		return err
	}
	return checkPaths(sc.Steps, "steps")
}

// checkSteps checks each step on its own, and the branches below it.
func checkSteps(steps []Step, where string) error {
	for i, st := range steps {
		at := fmt.Sprintf("%s[%d]", where, i)
		if err := st.check(at); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		for _, b := range []struct {
			name  string
			steps []Step
		}{{"on_accept", st.OnAccept}, {"on_reject", st.OnReject}, {"on_answer", st.OnAnswer}, {"on_timeout", st.OnTimeout}} {
			if err := checkSteps(b.steps, at+"."+b.name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (st *Step) check(at string) error {
	ev := st.Event
	if st.AfterMS < 0 {
		return errors.New("after_ms is negative")
	}
	if !slices.Contains(protocol.CoreTypes, ev.Type) {
		return fmt.Errorf("event type %q is not a core AAEP type", ev.Type)
	}
	for _, f := range ev.Fields {
		if slices.Contains(envelopeFields, f.Name) {
			return fmt.Errorf("event field %q is written by the producer; leave it out", f.Name)
		}
	}
	confirm := ev.Type == protocol.TypeAwaitingConfirmation
	clarify := ev.Type == protocol.TypeAwaitingClarify
	if !confirm && (st.OnAccept != nil || st.OnReject != nil) {
		return errors.New("on_accept and on_reject belong to confirmations only")
	}
	if !clarify && (st.OnAnswer != nil || st.OnTimeout != nil) {
		return errors.New("on_answer and on_timeout belong to clarifications only")
	}
	if confirm || clarify {
		var secs int
		if v, ok := ev.Get("timeout_seconds"); !ok || json.Unmarshal(v, &secs) != nil || secs < 1 {
			return errors.New("a prompt needs timeout_seconds, a positive integer")
		}
	}
	if confirm {
		def, _ := ev.str("default_decision")
		if def != protocol.DecisionAccept && def != protocol.DecisionReject {
			return errors.New(`default_decision must be "accept" or "reject"`)
		}
		risk, _ := ev.str("risk_level")
		if v, _ := ev.Get("irreversible"); string(v) == "true" && (risk == "high" || risk == "medium") && def != protocol.DecisionReject {
			return errors.New(`an irreversible action of medium or high risk needs default_decision "reject"`)
		}
		if _, err := allowedReplies(ev); err != nil {
			return err
		}
	}
	if clarify {
		if _, err := choices(ev); err != nil {
			return err
		}
	}
	return nil
}

// checkPaths follows every path through the prompts of steps: each must end
// with exactly one terminal event, and nothing may follow it.
func checkPaths(steps []Step, where string) error {
	for i, st := range steps {
		rest := steps[i+1:]
		var branches map[string][]Step
		switch st.Event.Type {
		case protocol.TypeAwaitingConfirmation:
			branches = map[string][]Step{"on_accept": st.OnAccept, "on_reject": st.OnReject}
		case protocol.TypeAwaitingClarify:
			branches = map[string][]Step{"on_answer": st.OnAnswer}
			if st.OnTimeout != nil {
				branches["on_timeout"] = st.OnTimeout
			} else if _, ok := st.Event.Get("default_response"); !ok {
				branches["a timeout without default_response"] = nil
			}
		}
		if branches != nil {
			for name, b := range branches {
				if err := checkPaths(slices.Concat(b, rest), fmt.Sprintf("%s[%d] then %s", where, i, name)); err != nil {
					return err
				}
			}
			return nil
		}
		if isTerminal(st.Event.Type) && len(rest) > 0 {
			return fmt.Errorf("%s: events follow the terminal %s", where, st.Event.Type)
		}
	}
	if len(steps) == 0 || !isTerminal(steps[len(steps)-1].Event.Type) {
		return fmt.Errorf("%s: the session does not end with a terminal event", where)
	}
	return nil
}

// allowedReplies returns a confirmation's allowed decisions.
func allowedReplies(ev Payload) ([]string, error) {
	v, ok := ev.Get("allowed_replies")
	if !ok {
		return []string{protocol.DecisionAccept, protocol.DecisionReject}, nil
	}
	var list []string
	if err := json.Unmarshal(v, &list); err != nil || len(list) == 0 {
		return nil, errors.New("allowed_replies must be a non-empty list of strings")
	}
	return list, nil
}

// choice is one offered answer of a clarification.
type choice struct{ Value, Label string }

func choices(ev Payload) ([]choice, error) {
	v, ok := ev.Get("choices")
	if !ok {
		return nil, nil
	}
	var list []choice
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, errors.New("choices must be a list of {value, label} objects")
	}
	return list, nil
}

// isLanguageTag reports whether s has the shape of a BCP 47 tag.
func isLanguageTag(s string) bool {
	for i, part := range strings.Split(s, "-") {
		if len(part) < 1 || len(part) > 8 {
			return false
		}
		for _, c := range part {
			letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
			if !letter && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

// jsonString returns s as a JSON string, without escaping HTML characters.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
