package announce

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

func TestMatchTags(t *testing.T) {
	tests := []struct {
		want, have string
		level      int
	}{
		{"en-US", "en-US", matchExact},
		{"en-us", "EN-US", matchExact},
		{"en-US", "en", matchRegion},
		{"en", "en-US", matchRegion},
		{"zh-Hant", "zh", matchScript},
		{"zh-Hant-TW", "zh-TW", matchScript},
		{"zh-Hant", "zh-Hans", matchNone},
		{"en-US", "en-GB", matchSibling},
		{"yo-NG", "yo", matchRegion},
		{"yo", "en", matchNone},
		{"es-419", "es", matchRegion},
		{"", "en", matchNone},
	}
	for _, tt := range tests {
		if got := matchTags(tt.want, tt.have); got != tt.level {
			t.Errorf("matchTags(%q, %q) = %d, want %d", tt.want, tt.have, got, tt.level)
		}
	}
}

func TestChooseLanguage(t *testing.T) {
	tests := []struct {
		name                     string
		prefs, offered, fallback []string
		want                     string
		ok                       bool
	}{
		{"exact", []string{"yo-NG", "en"}, []string{"en-US", "yo-NG"}, nil, "yo-NG", true},
		{"region fallback", []string{"yo-NG", "en"}, []string{"en-US", "yo"}, nil, "yo", true},
		{"best match of the first language wins", []string{"en-US"}, []string{"en-GB", "en"}, nil, "en", true},
		{"script fallback", []string{"zh-Hant"}, []string{"zh", "en"}, nil, "zh", true},
		{"user's next language", []string{"ha", "en"}, []string{"ar", "en-NG"}, nil, "en-NG", true},
		{"producer's fallback chain", []string{"ha"}, []string{"ar", "fr"}, []string{"fr", "ar"}, "fr", false},
		{"nothing matches: primary", []string{"ha"}, []string{"ar", "fr"}, nil, "ar", false},
		{"no preferences", nil, []string{"ar"}, nil, "ar", true},
	}
	for _, tt := range tests {
		got, ok := chooseLanguage(tt.prefs, tt.offered, tt.fallback)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: got %q %v, want %q %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// event decodes a JSON event as a producer would send it.
func event(t testing.TB, js string) *protocol.Event {
	t.Helper()
	var dec protocol.Decoder
	ev, err := dec.Decode([]byte(js))
	if err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return ev
}

const envelope = `"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","event_id":"evt_%s","timestamp":"2026-11-23T12:00:00Z","producer":{"agent_id":"ada"},`

func jsonEvent(id, rest string) string {
	return "{" + strings.Replace(envelope, "%s", id, 1) + rest + "}"
}

// Must show (announce part): a Yoruba, Arabic and Hebrew session; the user
// reads Yoruba, then English. Yoruba variants are chosen, English is the
// fallback, and a session in none of the user's languages is told once.
func TestLanguagesYorubaArabicHebrew(t *testing.T) {
	r := &recorder{}
	a := New(Config{Languages: []string{"yo-NG", "en"}}, r)
	for _, js := range []string{
		// English primary with a Yoruba variant: the variant is read.
		jsonEvent("1", `"type":"aaep:agent.progress.updated","session_id":"sess_yo","sequence_number":1,"progress":{"percent":40},
			"localization_hints":{"primary_language":"en-US","available_languages":["en-US","yo-NG"]},
			"summary_normal":"Calculating retirement projections.","summary_normal_yo":"Mo ń ṣírò àbáwọn owó ìfẹ̀hìntì."`),
		// English only: the user's second language.
		jsonEvent("2", `"type":"aaep:agent.state.changed","session_id":"sess_yo","sequence_number":2,"from_state":"working","to_state":"waiting",
			"localization_hints":{"primary_language":"en"},"summary_normal":"Waiting for the bank."`),
		// Arabic with an English fallback chain but no English text: read
		// as written, right to left, and told once.
		jsonEvent("3", `"type":"aaep:agent.session.started","session_id":"sess_ar","sequence_number":1,
			"localization_hints":{"primary_language":"ar-SA","text_direction":"rtl","fallback_chain":["ar","en"]},
			"summary_normal":"بدأ المساعد في تحويل الأموال."`),
		jsonEvent("4", `"type":"aaep:agent.state.changed","session_id":"sess_ar","sequence_number":2,"from_state":"working","to_state":"waiting",
			"localization_hints":{"primary_language":"ar-SA","text_direction":"rtl"},"summary_normal":"في انتظار البنك."`),
		// Hebrew primary with a Yoruba variant of the summary: Yoruba wins.
		jsonEvent("5", `"type":"aaep:agent.session.completed","session_id":"sess_he","sequence_number":1,
			"localization_hints":{"primary_language":"he-IL","text_direction":"rtl"},
			"summary_normal":"הַמְּשִׂימָה הֻשְׁלְמָה.","summary_normal_yo_NG":"Iṣẹ́ náà ti parí."`),
	} {
		a.Deliver(session.Delivery{Kind: session.KindEvent, Event: event(t, js)})
	}
	type want struct{ lang, text string }
	wants := []want{
		{"yo", "Mo ń ṣírò àbáwọn owó ìfẹ̀hìntì."},
		{"en", "Waiting for the bank."},
		{"en", "Note: this session is in ar-SA, which is not among your languages (yo-NG, en); it is read as written."},
		{"ar-SA", "بدأ المساعد في تحويل الأموال."},
		{"ar-SA", "في انتظار البنك."},
		{"yo-NG", "Finished: Iṣẹ́ náà ti parí."},
	}
	if len(r.got) != len(wants) {
		t.Fatalf("got %d announcements %q, want %d", len(r.got), r.texts(), len(wants))
	}
	for i, w := range wants {
		if g := r.got[i]; g.Lang != w.lang || g.Text != w.text {
			t.Errorf("announcement %d: %s %q, want %s %q", i, g.Lang, g.Text, w.lang, w.text)
		}
	}
	if !r.got[3].RTL || r.got[0].RTL || r.got[5].RTL {
		t.Errorf("direction: Arabic rtl %v, Yoruba rtl %v %v", r.got[3].RTL, r.got[0].RTL, r.got[5].RTL)
	}
}

func TestVariantsIgnoresLookalikes(t *testing.T) {
	raw := []byte(`{"summary_normal":"x","summary_normal_yo":"y","summary_normal_":"z","summary_normal_toolong":"z","action_ar_SA":"a","summary_normal_fr":5}`)
	v := variants(raw)
	if len(v) != 2 || v["yo"]["summary_normal"] != "y" || v["ar-SA"]["action"] != "a" {
		t.Fatalf("variants %v", v)
	}
}

func FuzzVariants(f *testing.F) {
	f.Add([]byte(`{"summary_normal_yo":"y","action_ar_SA":"a"}`))
	f.Add([]byte(`{"question_zh_Hant_TW":"q"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for lang, fields := range variants(raw) {
			if _, tag, ok := protocol.SplitVariant("summary_normal_" + strings.ReplaceAll(lang, "-", "_")); !ok || tag != lang {
				t.Fatalf("variant language %q is no tag", lang)
			}
			for name, text := range fields {
				if text == "" || name == "" {
					t.Fatalf("empty variant %q %q", name, text)
				}
			}
		}
	})
}

// A language note is per session of each agent: a second agent using the
// same session id in a language the user does not read is told too.
func TestLanguageNotePerAgent(t *testing.T) {
	r := &recorder{}
	a := New(Config{Languages: []string{"en"}}, r)
	for _, agent := range []string{"ada", "bob"} {
		js := jsonEvent("1"+agent[:1], `"type":"aaep:agent.session.started","session_id":"sess_shared","sequence_number":1,
			"localization_hints":{"primary_language":"fr"},"summary_normal":"Début."`)
		js = strings.Replace(js, `"agent_id":"ada"`, `"agent_id":"`+agent+`"`, 1)
		a.Deliver(session.Delivery{Kind: session.KindEvent, Event: event(t, js)})
	}
	notes := 0
	for _, g := range r.got {
		if strings.HasPrefix(g.Text, "Note: this session is in fr") {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("%d language notes for two agents sharing a session id, want 2: %q", notes, r.texts())
	}
}

// The announcer reads language variants by the schemas' rule: every member
// a schema lets a producer repeat in another language (a question's context,
// a tool call's description) is read in the user's language too.
func TestVariantsFollowTheSchemas(t *testing.T) {
	raw := []byte(`{"question":"Which account?","question_yo":"Àkántì wo?","context":"Two accounts.","context_yo":"Àkántì méjì.","description":"Reads.","description_yo":"Ó ń kà."}`)
	v := variants(raw)["yo"]
	for _, m := range []string{"question", "context", "description"} {
		if v[m] == "" {
			t.Errorf("variant of %s not read: %v", m, v)
		}
	}
}

// Tell says what Deliver says, and leaves the delivery it is given as it
// was, a localized one too (the console tells each update's delivery in
// place).
func TestTellAsDeliverLeavesTheDelivery(t *testing.T) {
	for _, langs := range [][]string{nil, {"yo-NG", "en"}} {
		byValue, byRef := &recorder{}, &recorder{}
		a, b := New(Config{Languages: langs}, byValue), New(Config{Languages: langs}, byRef)
		for _, js := range []string{
			jsonEvent("1", `"type":"aaep:agent.progress.updated","session_id":"sess_yo","sequence_number":1,"progress":{"percent":40},
			"localization_hints":{"primary_language":"en-US","available_languages":["en-US","yo-NG"]},
			"summary_normal":"Calculating retirement projections.","summary_normal_yo":"Mo ń ṣírò àbáwọn owó ìfẹ̀hìntì."`),
			jsonEvent("2", `"type":"aaep:agent.state.changed","session_id":"sess_yo","sequence_number":2,"from_state":"working","to_state":"waiting",
			"localization_hints":{"primary_language":"en"}`),
		} {
			ev := event(t, js)
			d := session.Delivery{Kind: session.KindEvent, Event: ev, Note: "after the call"}
			was, summary := d, ev.SummaryNormal
			a.Deliver(d)
			b.Tell(&d)
			if !reflect.DeepEqual(d, was) || ev.SummaryNormal != summary {
				t.Errorf("languages %v: Tell changed the delivery: %+v, was %+v", langs, d, was)
			}
		}
		if !reflect.DeepEqual(byValue.got, byRef.got) {
			t.Errorf("languages %v: Tell said\n%+v\nDeliver said\n%+v", langs, byRef.got, byValue.got)
		}
	}
}
