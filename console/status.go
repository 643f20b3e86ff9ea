package console

// status.go: a quiet start. At normal verbosity each agent gets one line,
// "Listening to …", once it is connected; how the subscription and its
// terms were settled is said only when it changes what the user will hear,
// and always when asked (agents, terms, --verbosity detailed).

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// status tells a status update of agent a.
func (l *Listener) status(a *agent, u *subscriber.Update) {
	if l.verbose(a) || l.cfg.Verbatim {
		l.sayFor(a, u.Text)
		return
	}
	switch {
	case u.Status == subscriber.StatusConnecting && !a.connected:
		// Held: said if the first connection fails, else "Listening".
		a.connecting = u.Text
		return
	case u.Status == subscriber.StatusConnected && !a.connected:
		a.connected, a.connecting = true, ""
		if rest, ok := strings.CutPrefix(u.Text, "Connected to "); ok {
			verb := "Listening to "
			if !transport.BindingOf(a.Endpoint()).Answers() {
				verb = "Reading "
			}
			u.Text = verb + rest
		}
	case u.Quiet && (u.Status != subscriber.StatusSubscribed || !a.troubled):
		// A subscription made after a refusal or a lost connection is
		// said: the user heard the trouble.
		return
	case a.connecting != "":
		l.sayFor(a, a.connecting) // a retry, a refusal: where it tried comes first
		a.connecting = ""
	}
	switch u.Status {
	case subscriber.StatusRejected, subscriber.StatusRetry, subscriber.StatusReconnecting:
		a.troubled = true
	case subscriber.StatusSubscribed:
		a.troubled = false
	}
	l.sayFor(a, u.Text)
}

// verbose reports whether a's statuses are all said: the user asked for
// detailed texts.
func (l *Listener) verbose(a *agent) bool {
	return a.terms.Verbosity == "detailed"
}

// termsWords says agent a's terms in plain words: what the producer
// grants and, in brackets, what was asked where that differs. It says so
// when there are none (no subscription, or none yet).
func termsWords(a *agent) string {
	t := a.c.Terms()
	if t.SubscriptionID == "" && t.Acceptance == nil {
		if a.State() == "subscribed" || a.Events() > 0 || a.Ended() {
			return "no terms: this producer negotiates no subscription."
		}
		return "no terms yet."
	}
	h, r := t.Honored, t.Requested
	asked := func(differs bool, what string) string {
		if differs {
			return " (you asked for " + what + ")"
		}
		return ""
	}
	var parts []string
	if v := h.PreferredVerbosity; v != "" {
		parts = append(parts, protocol.Name(v)+" texts"+asked(r.PreferredVerbosity != "" && r.PreferredVerbosity != v, protocol.Name(r.PreferredVerbosity)))
	}
	switch n := h.MaxEventsPerSecond; {
	case n > 0 && r.MaxEventsPerSecond == 0:
		parts = append(parts, "at most "+prose.Count(n, "event", "events")+" a second"+asked(true, "no limit"))
	case n > 0:
		parts = append(parts, "at most "+prose.Count(n, "event", "events")+" a second"+asked(r.MaxEventsPerSecond != n, strconv.Itoa(r.MaxEventsPerSecond)))
	default:
		parts = append(parts, "no limit on events a second")
	}
	if len(h.Languages) > 0 {
		parts = append(parts, "languages "+names(h.Languages)+asked(len(r.Languages) > 0 && !slices.EqualFunc(r.Languages, h.Languages, strings.EqualFold), names(r.Languages)))
	}
	if c := h.CognitiveLoad; c != "" {
		parts = append(parts, protocol.Name(c)+" cognitive load"+asked(r.CognitiveLoad != "" && r.CognitiveLoad != c, protocol.Name(r.CognitiveLoad)))
	}
	if f := h.EventFilters; f != nil && len(f.Include) > 0 {
		parts = append(parts, "only "+names(f.Include))
	}
	if f := h.EventFilters; f != nil && len(f.Exclude) > 0 {
		parts = append(parts, "never "+names(f.Exclude))
	}
	s := "the producer grants " + strings.Join(parts, ", ") + "."
	if t.Pending {
		s += " A change you asked for waits for its answer."
	}
	return s
}

// names lists producer or user words, each sanitized to a name.
func names(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = protocol.Name(s)
	}
	return prose.List(out)
}
