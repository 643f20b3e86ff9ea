// terms.go: the capabilities a subscriber asks for, the messages that ask
// for them (request, renegotiate, close), and how they read to a person.

package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// Terms are the capabilities the user asks a producer for, as the user
// configured them. The zero value asks for nothing in particular: the
// producer's defaults apply.
type Terms struct {
	// Rate is max_events_per_second; 0 means no limit (not sent).
	Rate int
	// Verbosity is terse, normal or detailed; "" is not sent.
	Verbosity string
	// Languages are BCP 47 tags in order of preference; none is not sent.
	Languages []string
	// Coalesce are the coalesce_boundaries; none is not sent.
	Coalesce []string
	// Include and Exclude are event_filters: event types, or prefixes
	// ending in "*" ("aaep:agent.tool.*").
	Include, Exclude []string
	// CognitiveLoad is low, medium or high; "" is not sent.
	CognitiveLoad string
	// PaceWPM is the announcing pace in words per minute; 0 is not sent.
	PaceWPM int
	// CanConfirm and CanClarify: the user can answer confirmations and
	// questions.
	CanConfirm, CanClarify bool
	// Strict closes the subscription when the producer grants more than
	// was asked for.
	Strict bool
}

// Verbosities, coalescing boundaries and cognitive loads the spec allows.
var (
	Verbosities    = []string{"terse", "normal", "detailed"}
	Boundaries     = []string{"none", "word", "sentence", "paragraph", "completion"}
	CognitiveLoads = []string{"low", "medium", "high"}
)

// ParseVerbosity reads a verbosity as a person may write it, on the command
// line, in the settings file or after "set verbosity": terse, normal,
// detailed, or verbose for detailed, in any case. It returns the spec's word.
func ParseVerbosity(s string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "verbose" {
		v = "detailed"
	}
	if !slices.Contains(Verbosities, v) {
		return "", fmt.Errorf("verbosity must be terse, normal or detailed, not %q", s)
	}
	return v, nil
}

// Capabilities is the capabilities object the terms ask for.
func (t Terms) Capabilities() protocol.Capabilities {
	c := protocol.Capabilities{
		MaxEventsPerSecond:         t.Rate,
		PreferredVerbosity:         t.Verbosity,
		Languages:                  slices.Clone(t.Languages),
		SupportsConfirmationReply:  &t.CanConfirm,
		SupportsClarificationReply: &t.CanClarify,
		CoalesceBoundaries:         slices.Clone(t.Coalesce),
		SupportedConformanceLevels: []int{1, 2, 3},
		CognitiveLoad:              t.CognitiveLoad,
		PaceWPM:                    t.PaceWPM,
	}
	if len(t.Include) > 0 || len(t.Exclude) > 0 {
		c.EventFilters = &protocol.EventFilters{Include: slices.Clone(t.Include), Exclude: slices.Clone(t.Exclude)}
	}
	return c
}

// Filters reports whether the terms filter event types.
func (t Terms) Filters() bool { return len(t.Include) > 0 || len(t.Exclude) > 0 }

// Check reports the first term the spec does not allow, in words that name
// the flag or command setting it.
func (t Terms) Check() error {
	if t.Rate < 0 || t.Rate > 100000 {
		return fmt.Errorf("rate must be from 1 to 100000 events per second (0 for no limit), not %d", t.Rate)
	}
	if t.Verbosity != "" && !slices.Contains(Verbosities, t.Verbosity) {
		return fmt.Errorf("verbosity must be terse, normal or detailed, not %q", t.Verbosity)
	}
	for _, l := range t.Languages {
		if !isLanguageTag(l) {
			return fmt.Errorf("lang: %q is not a language tag (such as en, en-GB or yo)", l)
		}
	}
	if len(t.Languages) > 32 {
		return fmt.Errorf("lang: at most 32 languages, not %d", len(t.Languages))
	}
	for _, b := range t.Coalesce {
		if !slices.Contains(Boundaries, b) {
			return fmt.Errorf("coalesce: %q is not one of none, word, sentence, paragraph, completion", b)
		}
	}
	for _, f := range []struct {
		name string
		pats []string
	}{{"include", t.Include}, {"exclude", t.Exclude}} {
		for _, p := range f.pats {
			if err := checkPattern(p); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
	}
	if t.CognitiveLoad != "" && !slices.Contains(CognitiveLoads, t.CognitiveLoad) {
		return fmt.Errorf("cognitive-load must be low, medium or high, not %q", t.CognitiveLoad)
	}
	if t.PaceWPM != 0 && (t.PaceWPM < 50 || t.PaceWPM > 1000) {
		return fmt.Errorf("pace-wpm must be from 50 to 1000 words per minute, not %d", t.PaceWPM)
	}
	return nil
}

func checkPattern(p string) error {
	if p == "" || len(p) > 256 || strings.Contains(strings.TrimSuffix(p, "*"), "*") {
		return fmt.Errorf("filter %q is not an event type or a prefix ending in *", p)
	}
	return nil
}

// isLanguageTag reports whether s has the shape of a BCP 47 tag: subtags
// of 1 to 8 letters or digits, the first letters only.
func isLanguageTag(s string) bool {
	for i, sub := range strings.Split(s, "-") {
		if len(sub) < 1 || len(sub) > 8 {
			return false
		}
		for _, r := range sub {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			if !letter && (i == 0 || r < '0' || r > '9') {
				return false
			}
		}
	}
	return true
}

// Pattern completes a filter pattern the user typed, as
// protocol.ExpandType does: "tool.*" and "agent.tool.*" are
// "aaep:agent.tool.*".
func Pattern(p string) string { return protocol.ExpandType(p) }

// UnknownPatterns says, one line each, which of the filter patterns pats
// (expanded; what is "include" or "exclude") matches no known event type:
// most likely a typing mistake. Patterns of another namespace cannot be
// judged and are not named.
func UnknownPatterns(what string, pats []string) []string {
	var out []string
	for _, p := range pats {
		if !protocol.MatchesCoreType(p) {
			out = append(out, fmt.Sprintf("The %s filter %s matches no known event type; check its spelling (such as tool.* or agent.progress.updated).", what, clean(p)))
		}
	}
	return out
}

// List splits a comma-separated list the user typed, dropping blanks.
func List(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// SubscriberID is a stable subscriber_id for one user and configuration:
// the same configDir and user always give the same ID, and it reveals
// neither.
func SubscriberID(configDir, user string) string {
	sum := sha256.Sum256([]byte(configDir + "\x00" + user))
	return "aaep-term-" + hex.EncodeToString(sum[:8])
}

// Identity names the subscriber in a subscription.request.
type Identity struct {
	ID, Name, Version string
}

// Request is the subscription.request message for the terms.
func Request(id Identity, t Terms) protocol.SubscriptionRequest {
	return protocol.SubscriptionRequest{
		Type:              protocol.TypeSubscriptionRequest,
		AAEPVersion:       protocol.Version,
		SubscriberID:      id.ID,
		SubscriberName:    id.Name,
		SubscriberVersion: id.Version,
		Capabilities:      t.Capabilities(),
	}
}

// Renegotiate is the subscription.renegotiate message that changes the
// capabilities set in changes, and only those.
func Renegotiate(subscriptionID string, changes protocol.Capabilities) ([]byte, error) {
	b, err := json.Marshal(protocol.SubscriptionRenegotiate{
		Type: protocol.TypeSubscriptionRenegotiate, SubscriptionID: subscriptionID, Capabilities: changes,
	})
	if err != nil {
		return nil, fmt.Errorf("build the renegotiation: %w", err)
	}
	return b, nil
}

// Close reason codes this subscriber sends.
const (
	CloseShutdown = "subscriber_shutdown" // the user quit or the program was stopped
	CloseTerms    = "terms_violated"      // the producer broke the negotiated terms (--strict)
)

// Close is the subscription.close message.
func Close(subscriptionID, code, message string) []byte {
	b, _ := json.Marshal(protocol.SubscriptionClose{ // strings always marshal
		Type: protocol.TypeSubscriptionClose, SubscriptionID: subscriptionID, ReasonCode: code, ReasonMessage: message,
	})
	return b
}

// Settings are the names "set NAME VALUE" takes, in the order help lists them.
var Settings = []string{"rate", "verbosity", "lang", "include", "exclude"}

// Set changes one term as the user typed it ("rate", "2"; "lang",
// "yo,en"; "verbosity", "verbose") and returns the new terms and the
// capabilities a renegotiation must send for the change: only what
// changed, except that event_filters go whole. The value is checked as
// the flags are.
func (t Terms) Set(name, value string) (Terms, protocol.Capabilities, error) {
	var c protocol.Capabilities
	switch name {
	case "rate":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return t, c, fmt.Errorf("set rate takes a whole number of events per second, 1 or more, not %q", value)
		}
		t.Rate, c.MaxEventsPerSecond = n, n
	case "verbosity":
		v, err := ParseVerbosity(value)
		if err != nil {
			return t, c, fmt.Errorf("set %w", err)
		}
		t.Verbosity, c.PreferredVerbosity = v, v
	case "lang":
		t.Languages = List(value)
		if len(t.Languages) == 0 {
			return t, c, fmt.Errorf("set lang takes language tags, such as yo,en")
		}
		c.Languages = slices.Clone(t.Languages)
	case "include", "exclude":
		pats := Patterns(value)
		if name == "include" {
			t.Include = pats
		} else {
			t.Exclude = pats
		}
		c.EventFilters = &protocol.EventFilters{Include: slices.Clone(t.Include), Exclude: slices.Clone(t.Exclude)}
	case "":
		return t, c, fmt.Errorf("set what? Type set followed by one of %s and a value, such as set rate 2", strings.Join(Settings, ", "))
	default:
		return t, c, fmt.Errorf("there is no setting %q; settings are %s", name, strings.Join(Settings, ", "))
	}
	if err := t.Check(); err != nil {
		return t, c, fmt.Errorf("set %w", err)
	}
	return t, c, nil
}
