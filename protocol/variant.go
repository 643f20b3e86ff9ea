// variant.go holds the language-variant rule of spec 11.5.1: a text member
// repeated in another language under its name, "_", and a language tag
// written with underscores, such as summary_normal_yo or action_ar_SA.
// The event schemas state it as patternProperties; the decoder's fast form
// of those patterns and the announcer both use the functions here.

package protocol

import (
	"bytes"
	"strings"
)

// variantSuffix is how the schemas' patterns end: the language tag after
// the member's name.
const variantSuffix = `_[A-Za-z]{2,3}(_([A-Za-z]{2,8}|[0-9]{2,8}))*$`

// textMembers are the text members a producer may repeat in another
// language, in the order the announcer applies them.
var textMembers = []struct {
	name string
	get  func(*Event) *Text
}{
	{"summary_terse", func(e *Event) *Text { return &e.SummaryTerse }},
	{"summary_normal", func(e *Event) *Text { return &e.SummaryNormal }},
	{"summary_detailed", func(e *Event) *Text { return &e.SummaryDetailed }},
	{"action", func(e *Event) *Text { return &e.Action }},
	{"consequence", func(e *Event) *Text { return &e.Consequence }},
	{"question", func(e *Event) *Text { return &e.Question }},
	{"context", func(e *Event) *Text { return &e.ClarifyContext }},
	{"reason", func(e *Event) *Text { return &e.Reason }},
	{"remediation_hint", func(e *Event) *Text { return &e.RemediationHint }},
	{"output_summary", func(e *Event) *Text { return &e.OutputSummary }},
	{"request_text", func(e *Event) *Text { return &e.RequestText }},
	{"partial_result", func(e *Event) *Text { return &e.PartialResult }},
	{"error_message", func(e *Event) *Text { return &e.ErrorMessage }},
	{"args_summary", func(e *Event) *Text { return &e.ArgsSummary }},
	{"description", func(e *Event) *Text { return &e.Description }},
}

// TextMember returns the text member of e named name (one a producer may
// repeat in another language), or nil.
func (e *Event) TextMember(name string) *Text {
	for _, m := range textMembers {
		if m.name == name {
			return m.get(e)
		}
	}
	return nil
}

// SplitVariant reports whether name is a language variant of a text member
// (see TextMember): it returns the member and the language tag, written
// with hyphens (summary_normal_zh_Hant gives summary_normal and zh-Hant).
// Whether the event's type defines that member is its schema's business.
func SplitVariant(name string) (member, tag string, ok bool) {
	for _, m := range textMembers {
		if tag, ok := variantTag(name, m.name); ok {
			return m.name, tag, true
		}
	}
	return "", "", false
}

// MayHaveVariant reports whether the raw event may hold a language
// variant: most events hold none and need not be decoded again.
func MayHaveVariant(raw []byte) bool {
	for _, m := range textMembers {
		if bytes.Contains(raw, []byte(`"`+m.name+"_")) {
			return true
		}
	}
	return false
}

// variantTag reports whether name is member, "_", and a language tag
// written with underscores: 2 or 3 letters, then parts of 2 to 8 letters or
// of 2 to 8 digits. It returns the tag with hyphens.
func variantTag(name, member string) (string, bool) {
	s, ok := strings.CutPrefix(name, member+"_")
	if !ok {
		return "", false
	}
	parts := strings.Split(s, "_")
	if n := len(parts[0]); n < 2 || n > 3 || !allOf(parts[0], isAlpha) {
		return "", false
	}
	for _, p := range parts[1:] {
		if len(p) < 2 || len(p) > 8 || !allOf(p, isAlpha) && !allOf(p, isDigit) {
			return "", false
		}
	}
	return strings.Join(parts, "-"), true
}

func allOf(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}

// variantMatcher returns the fast form of a schema pattern
// "^(member|member…)" + variantSuffix, or nil for any other pattern.
func variantMatcher(pattern string) func(string) bool {
	rest, ok := strings.CutPrefix(pattern, "^(")
	list, tail, ok2 := strings.Cut(rest, ")")
	if !ok || !ok2 || tail != variantSuffix {
		return nil
	}
	members := strings.Split(list, "|")
	for _, m := range members {
		if m == "" || !allOf(m, func(c byte) bool { return c >= 'a' && c <= 'z' || c == '_' }) {
			return nil
		}
	}
	return func(name string) bool {
		for _, m := range members {
			if _, ok := variantTag(name, m); ok {
				return true
			}
		}
		return false
	}
}
