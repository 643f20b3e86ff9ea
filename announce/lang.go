// lang.go holds language choice: the user's languages matched against what
// an event offers (its primary language and per-field variants such as
// summary_normal_yo), by BCP 47 tag with region and script fallback, then the
// producer's fallback chain.

package announce

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// How well a tag offered matches a tag wanted; higher is better.
const (
	matchNone    = iota
	matchSibling // same language, another region: en-GB for en-US
	matchScript  // one side names no script: zh for zh-Hant
	matchRegion  // one side names no region: en for en-US, en-US for en
	matchExact
)

// tag is a BCP 47 tag cut into the parts matching looks at, lower case.
type tag struct{ lang, script, region string }

func parseTag(s string) tag {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(strings.ReplaceAll(s, "_", "-"))), "-")
	t := tag{lang: parts[0]}
	for _, p := range parts[1:] {
		switch {
		case len(p) == 4 && isLetters(p) && t.script == "" && t.region == "":
			t.script = p
		case (len(p) == 2 && isLetters(p) || len(p) == 3 && isDigits(p)) && t.region == "":
			t.region = p
		}
	}
	return t
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return s != ""
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// matchTags says how well have serves a user who wants want.
func matchTags(want, have string) int {
	w, h := parseTag(want), parseTag(have)
	switch {
	case w.lang == "" || w.lang != h.lang:
		return matchNone
	case w == h:
		return matchExact
	case w.script != "" && h.script != "" && w.script != h.script:
		return matchNone // another writing system cannot be read
	case w.script == h.script && (w.region == "" || h.region == ""):
		return matchRegion
	case w.region == h.region || w.region == "" || h.region == "":
		return matchScript
	}
	return matchSibling
}

// chooseLanguage picks, from offered (the event's primary language first),
// the language to announce in: the user's first language that any offer
// matches, best match first; else the producer's fallback chain; else the
// primary language. ok says whether it is one of the user's languages.
func chooseLanguage(prefs, offered, fallback []string) (chosen string, ok bool) {
	if len(offered) == 0 {
		return "", len(prefs) == 0
	}
	for _, want := range prefs {
		best, bestLevel := "", matchNone
		for _, have := range offered {
			if l := matchTags(want, have); l > bestLevel {
				best, bestLevel = have, l
			}
		}
		if bestLevel > matchNone {
			return best, true
		}
	}
	for _, want := range fallback {
		for _, have := range offered {
			if matchTags(want, have) >= matchRegion {
				return have, len(prefs) == 0
			}
		}
	}
	return offered[0], len(prefs) == 0
}

// variants returns the per-field language variants in raw, by language tag
// (as written, with "_" turned to "-") and member name, by the rule of
// protocol.SplitVariant (the one the event schemas state).
func variants(raw []byte) map[string]map[string]string {
	if !protocol.MayHaveVariant(raw) {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil
	}
	var out map[string]map[string]string
	for key, v := range fields {
		member, lang, ok := protocol.SplitVariant(key)
		if !ok {
			continue
		}
		var text string
		if json.Unmarshal(v, &text) != nil || text == "" {
			continue
		}
		if out == nil {
			out = map[string]map[string]string{}
		}
		if out[lang] == nil {
			out[lang] = map[string]string{}
		}
		out[lang][member] = text
	}
	return out
}

// rtlLanguages are written right to left.
var rtlLanguages = map[string]bool{"ar": true, "he": true, "iw": true, "fa": true, "ur": true, "yi": true,
	"ps": true, "sd": true, "ug": true, "dv": true, "ckb": true, "syr": true}

// sessionKey is a session as the engine knows it: two agents may use the
// same session id.
type sessionKey struct{ agentID, sessionID string }

// maxLanguageNotes bounds the sessions remembered as told about language.
const maxLanguageNotes = 4096

// localize returns d with its event in the user's language when the event
// carries a variant for it, and tells the user, once per session, when an
// event is in none of their languages.
func (a *Announcer) localize(d session.Delivery) session.Delivery {
	ev := d.Event
	if len(a.cfg.Languages) == 0 || ev == nil || d.Kind != session.KindEvent {
		return d
	}
	primary := ev.Localization.PrimaryLanguage
	if ev.Language != "" {
		primary = ev.Language
	}
	var offered []string
	if primary != "" {
		offered = append(offered, primary)
	}
	vars := variants(ev.Raw)
	for lang := range vars {
		offered = append(offered, lang)
	}
	if len(offered) > 1 {
		// Map order is random: keep the primary first, the rest sorted, so the choice is stable.
		slices.Sort(offered[1:])
	}
	chosen, ok := chooseLanguage(a.cfg.Languages, offered, ev.Localization.FallbackChain)
	if !ok && chosen != "" {
		a.noteLanguage(d, chosen)
	}
	if chosen == "" || chosen == primary || vars[chosen] == nil {
		return d
	}
	local := *ev
	v := vars[chosen]
	if v["summary_terse"] != "" || v["summary_normal"] != "" || v["summary_detailed"] != "" {
		// Summaries in the chosen language win over other levels in another.
		local.SummaryTerse, local.SummaryNormal, local.SummaryDetailed = "", "", ""
	}
	for member, text := range v {
		if p := local.TextMember(member); p != nil {
			*p = protocol.Text(text)
		}
	}
	local.Localization.PrimaryLanguage = chosen
	local.Language = ""
	local.Localization.TextDirection = "ltr"
	if rtlLanguages[parseTag(chosen).lang] {
		local.Localization.TextDirection = "rtl"
	}
	d.Event = &local
	return d
}

// noteLanguage tells the user once per session that its events are not in
// any of their languages.
func (a *Announcer) noteLanguage(d session.Delivery, lang string) {
	if a.langNoted == nil || len(a.langNoted) >= maxLanguageNotes {
		a.langNoted = map[sessionKey]bool{}
	}
	k := sessionKey{d.Event.Producer.AgentID, d.Event.SessionID}
	if a.langNoted[k] {
		return
	}
	a.langNoted[k] = true
	var an Announcement
	a.base(&an, &d, "language", fmt.Sprintf("Note: this session is in %s, which is not among your languages (%s); it is read as written.",
		protocol.Sanitize(lang), protocol.Sanitize(strings.Join(a.cfg.Languages, ", "))))
	// Our own words, in English: a voice left in the event's language would garble them.
	an.Priority, an.Event, an.Prompt, an.Lang, an.RTL = Normal, nil, nil, "en", false
	a.emit(&an)
}
