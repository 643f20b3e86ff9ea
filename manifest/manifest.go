package manifest

// manifest.go: the producer manifest (spec §5.10) as the subscriber reads
// it, and whether its claims agree with the subscription it accompanies.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// MaxBytes bounds a manifest, signed or not, as fetched or inline.
const MaxBytes = 256 << 10

// Type is the type a manifest declares; the full-URI form is
// accepted too.
const Type = "aaep:producer.manifest"

// Claims is what a producer claims about itself (spec §5.10). Fields the
// producer left out are zero. All strings are as the producer wrote them:
// sanitize them before showing them.
type Claims struct {
	Type              string   `json:"type,omitempty"`
	AgentID           string   `json:"agent_id"`
	AgentName         string   `json:"agent_name,omitempty"`
	AgentVersion      string   `json:"agent_version,omitempty"`
	AAEPVersions      []string `json:"aaep_versions_supported,omitempty"`
	ConformanceLevels []int    `json:"conformance_levels_supported,omitempty"`
	Transports        []string `json:"transports_supported,omitempty"`
	Languages         []string `json:"languages_supported,omitempty"`
	EventTypes        []string `json:"event_types_emitted,omitempty"`
	// Extensions are the extension namespaces the producer supports; the
	// spec lists them as strings, and objects naming a "namespace" are read
	// too.
	Extensions       []string `json:"extensions_supported,omitempty"`
	DefaultVerbosity string   `json:"default_verbosity,omitempty"`
	MaxSubscriptions int      `json:"max_concurrent_subscriptions,omitempty"`
	Contact          string   `json:"contact,omitempty"`
	// Capabilities is a "capabilities" object some producers add, by member
	// name; nil when absent.
	Capabilities map[string]json.RawMessage `json:"capabilities,omitempty"`
	// Expires is the "exp" member (seconds since 1970, as in JWT), zero when
	// absent. The spec defines no expiry; a manifest that sets one is
	// refused once it has passed.
	Expires int64 `json:"exp,omitempty"`
}

// ErrMalformed is wrapped by every error of Parse.
var ErrMalformed = errors.New("manifest: malformed manifest")

// Parse decodes a manifest document: a JSON object with at least a
// non-empty agent_id. Members of the wrong type are errors naming the
// member; unknown members are ignored.
func Parse(b []byte) (*Claims, error) {
	if len(b) > MaxBytes {
		return nil, malformed("it is %d bytes long, more than the %d allowed", len(b), MaxBytes)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return nil, malformed("it is not a JSON object")
	}
	m := &Claims{}
	fields := []struct {
		name string
		dst  any
	}{
		{"type", &m.Type}, {"agent_id", &m.AgentID}, {"agent_name", &m.AgentName},
		{"agent_version", &m.AgentVersion}, {"aaep_versions_supported", &m.AAEPVersions},
		{"conformance_levels_supported", &m.ConformanceLevels}, {"transports_supported", &m.Transports},
		{"languages_supported", &m.Languages}, {"event_types_emitted", &m.EventTypes},
		{"default_verbosity", &m.DefaultVerbosity}, {"max_concurrent_subscriptions", &m.MaxSubscriptions},
		{"contact", &m.Contact}, {"capabilities", &m.Capabilities}, {"exp", &m.Expires},
	}
	for _, f := range fields {
		v, ok := raw[f.name]
		if !ok || bytes.Equal(v, []byte("null")) {
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			return nil, malformed("its %s has the wrong type", f.name)
		}
	}
	if v, ok := raw["extensions_supported"]; ok {
		ext, err := extensionNames(v)
		if err != nil {
			return nil, err
		}
		m.Extensions = ext
	}
	switch {
	case m.AgentID == "":
		return nil, malformed("it names no agent_id")
	case m.Type != "" && protocol.NormalizeType(m.Type) != Type:
		return nil, malformed("its type is %s, not %s", protocol.Name(m.Type), Type)
	}
	for _, l := range m.ConformanceLevels {
		if l < 1 || l > 3 {
			return nil, malformed("it claims conformance level %d, which is not 1, 2 or 3", l)
		}
	}
	return m, nil
}

func malformed(format string, args ...any) error {
	return manifestFail(ErrMalformed, "The producer's manifest could not be read: "+format+".", args...)
}

// extensionNames reads extensions_supported: strings, or objects with a
// "namespace" (or "uri") string.
func extensionNames(v json.RawMessage) ([]string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, malformed("its extensions_supported has the wrong type")
	}
	var out []string
	for _, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			out = append(out, s)
			continue
		}
		var o struct {
			Namespace string `json:"namespace"`
			URI       string `json:"uri"`
		}
		if json.Unmarshal(it, &o) != nil || o.Namespace == "" && o.URI == "" {
			return nil, malformed("an entry of its extensions_supported is neither a string nor an object with a namespace")
		}
		out = append(out, cmpOr(o.Namespace, o.URI))
	}
	return out, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Expired reports whether the manifest carries an expiry that has passed.
func (m *Claims) Expired(now time.Time) bool {
	return m.Expires != 0 && now.Unix() >= m.Expires
}

// Emits reports whether the manifest lists typ among the event types it
// emits (exactly, or by a pattern ending in "*"); a manifest that lists
// none claims nothing, and emits every type.
func (m *Claims) Emits(typ string) bool {
	if len(m.EventTypes) == 0 {
		return true
	}
	typ = protocol.NormalizeType(typ)
	for _, claimed := range m.EventTypes {
		claimed = protocol.NormalizeType(claimed)
		if prefix, ok := strings.CutSuffix(claimed, "*"); ok && strings.HasPrefix(typ, prefix) || claimed == typ {
			return true
		}
	}
	return false
}

// Offering is what a subscription.accepted and the connection say the
// producer offers; a manifest must agree with it.
type Offering struct {
	// AgentID is accepted.producer.agent_id.
	AgentID string
	// Transport is the binding in use, in the manifest's words: "sse",
	// "websocket", "stdio" or "unix"; empty skips the check.
	Transport string
	// Levels are honored_capabilities.supported_conformance_levels. A
	// handshake took place, so Level 3 is implied whatever they say.
	Levels []int
	// Languages are honored_capabilities.languages.
	Languages []string
}

// ErrAgentMismatch is returned by Check when the manifest is another
// agent's.
var ErrAgentMismatch = errors.New("manifest: manifest agent mismatch")

// Check returns an error wrapping ErrAgentMismatch when the manifest is not
// for the agent that accepted the subscription, and otherwise one sentence
// per claim that disagrees with the subscription (none when all agree).
func (m *Claims) Check(o Offering) ([]string, error) {
	if o.AgentID != "" && m.AgentID != o.AgentID {
		return nil, manifestFail(ErrAgentMismatch, "The producer's manifest is for agent %s, but agent %s accepted the subscription: the producer may be impersonating another agent.",
			protocol.Name(m.AgentID), protocol.Name(o.AgentID))
	}
	var problems []string
	if len(m.ConformanceLevels) > 0 {
		levels := append([]int{3}, o.Levels...)
		for _, l := range levels {
			if !slices.Contains(m.ConformanceLevels, l) {
				problems = append(problems, fmt.Sprintf("it offers conformance level %d on this subscription but its manifest claims only %s",
					l, joinInts(m.ConformanceLevels)))
				break
			}
		}
	}
	if o.Transport != "" && len(m.Transports) > 0 && !slices.ContainsFunc(m.Transports, func(t string) bool {
		return sameTransport(t, o.Transport)
	}) {
		problems = append(problems, fmt.Sprintf("it serves this subscription over %s, which its manifest does not list (%s)",
			o.Transport, protocol.Line(strings.Join(m.Transports, ", "))))
	}
	if len(m.Languages) > 0 {
		for _, l := range o.Languages {
			if !slices.ContainsFunc(m.Languages, func(have string) bool { return samePrimary(have, l) }) {
				problems = append(problems, fmt.Sprintf("it honours language %s, which its manifest does not list (%s)",
					protocol.Name(l), protocol.Line(strings.Join(m.Languages, ", "))))
				break
			}
		}
	}
	return problems, nil
}

// sameTransport compares transport names loosely: "stdio-jsonrpc" is
// "stdio", "ws" is "websocket", "http+sse" is "sse".
func sameTransport(claimed, used string) bool {
	norm := func(s string) string {
		s = strings.ToLower(s)
		switch {
		case strings.Contains(s, "stdio"):
			return "stdio"
		case s == "ws" || s == "wss" || strings.Contains(s, "websocket"):
			return "websocket"
		case strings.Contains(s, "sse"):
			return "sse"
		case strings.Contains(s, "unix"):
			return "unix"
		}
		return s
	}
	return norm(claimed) == norm(used)
}

func samePrimary(a, b string) bool {
	pa, _, _ := strings.Cut(a, "-")
	pb, _, _ := strings.Cut(b, "-")
	return strings.EqualFold(pa, pb)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
