package protocol

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// schemaVariantPatterns returns the patternProperties keys of the event schemas.
func schemaVariantPatterns(t testing.TB) []string {
	files, err := schemaFiles.ReadDir("schemas")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		b, _ := schemaFiles.ReadFile("schemas/" + f.Name())
		var doc struct {
			PatternProperties map[string]any `json:"patternProperties"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for p := range doc.PatternProperties {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatal("no patternProperties in the schemas")
	}
	return out
}

var variantInputs = []string{"summary_normal_yo", "summary_normal_", "summary_normal_toolong", "summary_normal_yo_NG",
	"action_ar_SA", "question_zh_Hant_TW", "context_fr", "description_de", "args_summary_es_419", "summary_normal_en_1a",
	"summary_normal_en_123456789", "summary_normal_é", "xsummary_normal_yo", "summary_normal_yo\n", "summary_normal_y",
	"summary_normal_yo_", "summary_normal_yo__NG", "error_message_EN", "request_text_abc_defghijk", "summary_normal"}

// Every language-variant pattern of the schemas has the fast form the
// announcer shares, agrees with the regular expression, and names only
// members SplitVariant and TextMember know.
func TestVariantPatterns(t *testing.T) {
	for _, p := range schemaVariantPatterns(t) {
		fast := variantMatcher(p)
		if fast == nil {
			t.Errorf("pattern %s has no fast form", p)
			continue
		}
		re := regexp.MustCompile(p)
		for _, in := range variantInputs {
			if fast(in) != re.MatchString(in) {
				t.Errorf("pattern %s on %q: fast %v, regexp %v", p, in, fast(in), re.MatchString(in))
			}
			if fast(in) {
				m, _, ok := SplitVariant(in)
				if !ok || (&Event{}).TextMember(m) == nil {
					t.Errorf("%q matches %s but SplitVariant says %q %v", in, p, m, ok)
				}
			}
		}
		list, _, _ := strings.Cut(strings.TrimPrefix(p, "^("), ")")
		for _, m := range strings.Split(list, "|") {
			if (&Event{}).TextMember(m) == nil {
				t.Errorf("pattern %s: member %s is not a TextMember", p, m)
			}
		}
	}
	if m, tag, ok := SplitVariant("summary_normal_zh_Hant"); !ok || m != "summary_normal" || tag != "zh-Hant" {
		t.Errorf("SplitVariant = %q %q %v", m, tag, ok)
	}
}

func FuzzVariantPatterns(f *testing.F) {
	for _, in := range variantInputs {
		f.Add(in)
	}
	pats := schemaVariantPatterns(f)
	f.Fuzz(func(t *testing.T, in string) {
		for _, p := range pats {
			if variantMatcher(p)(in) != regexp.MustCompile(p).MatchString(in) {
				t.Fatalf("pattern %s disagrees on %q", p, in)
			}
		}
	})
}
