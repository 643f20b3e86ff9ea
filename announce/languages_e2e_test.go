package announce_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/braille"
	"github.com/aaep-term/aaep-term/braille/brltest"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/speech"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
	"github.com/rivo/uniseg"
)

// The scenario: a user who reads Yoruba, then English. Three sessions: one
// offering a Yoruba variant, one in Arabic, one in Hebrew with vowel points.
// The producer's texts carry tone marks, harakat and niqqud, plus a hostile
// right-to-left override that must not survive.
var (
	yoruba = "Mo ń ṣírò àbáwọn owó ìfẹ̀hìntì rẹ."
	arabic = "بدأ المساعد في تحويل الأموال إلى حساب التوفير."
	hebrew = "הַמְּשִׂימָה הֻשְׁלְמָה בְּהַצְלָחָה."
)

func scenario() []string {
	env := func(id, session string) string {
		return `"@context":"https://aaep-protocol.org/context/v1","aaep_version":"1.0.0","event_id":"evt_` + id +
			`","session_id":"` + session + `","timestamp":"2026-11-23T12:00:00Z","producer":{"agent_id":"ada","agent_name":"Ada"},`
	}
	return []string{
		`{` + env("1", "sess_yo") + `"type":"aaep:agent.progress.updated","sequence_number":1,"progress":{"percent":40},
			"localization_hints":{"primary_language":"en-US"},"summary_normal":"Calculating retirement projections.",
			"summary_normal_yo_NG":"` + yoruba + `"}`,
		`{` + env("2", "sess_ar") + `"type":"aaep:agent.session.started","sequence_number":1,
			"localization_hints":{"primary_language":"ar-SA","text_direction":"rtl","fallback_chain":["ar"]},
			"summary_normal":"` + arabic + `\u202e"}`,
		`{` + env("3", "sess_he") + `"type":"aaep:agent.session.completed","sequence_number":1,
			"localization_hints":{"primary_language":"he-IL","text_direction":"rtl"},"summary_normal":"\u202d` + hebrew + `"}`,
	}
}

// Must show: right language chosen, right-to-left text isolated on the
// line, and no grapheme cluster broken in any output: the line, the real
// speech-dispatcher and the real BRLTTY.
func TestYorubaArabicHebrewInEveryOutput(t *testing.T) {
	sd := speechdtest.Start(t, "")
	brl := brltest.Start(t, 20, "")
	ctx := context.Background()
	sp, err := speech.NewSpeechd(ctx, speech.Address{Network: "unix", Addr: sd.Socket}, "user:aaep-listen:test")
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	bc, err := braille.Dial(ctx, braille.Options{Host: brl.Host})
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	bs, err := braille.NewSink(ctx, bc, braille.Config{FlashTime: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	var out bytes.Buffer
	lw := line.NewWriter(&out, nil, line.WriterOptions{Location: time.UTC})
	a := announce.New(announce.Config{Languages: []string{"yo-NG", "en"}}, lw, &speech.Sink{Backend: sp}, bs)
	var dec protocol.Decoder
	for _, js := range scenario() {
		ev, err := dec.Decode([]byte(js))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		a.Deliver(session.Delivery{Kind: session.KindEvent, At: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Event: ev})
	}
	lw.Flush()

	// The line output: Yoruba chosen; Arabic and Hebrew between isolates, in
	// logical order, the producer's overrides gone; each told once as not
	// in the user's languages.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	wantLines := []string{
		"12:00:00 Ada: " + yoruba,
		"12:00:00 Ada: Note: this session is in ar-SA, which is not among your languages (yo-NG, en); it is read as written.",
		"12:00:00 Ada: \u2068" + arabic + "\u2069",
		"12:00:00 Ada: Note: this session is in he-IL, which is not among your languages (yo-NG, en); it is read as written.",
		"12:00:00 Ada: Finished: \u2068" + hebrew + "\u2069", // our label outside the isolate of the producer's words
	}
	if strings.Join(lines, "\n") != strings.Join(wantLines, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(wantLines, "\n"))
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\u202a\u202b\u202c\u202d\u202e\x1b") {
			t.Errorf("override or escape left on the line %q", l)
		}
		checkClusters(t, "line", l)
	}

	// Speech: every text whole, in order.
	// The capture module speaks punctuation inside our own notes its own way.
	wantSpoken := []string{yoruba, "Note: this session is in", arabic, "Note: this session is in", "Finished: " + hebrew}
	spoken := sd.WaitSpoken(t, len(wantSpoken), 10*time.Second)
	if len(spoken) != len(wantSpoken) {
		t.Fatalf("spoken %q", spoken)
	}
	for i, w := range wantSpoken {
		if !strings.HasPrefix(strings.TrimSpace(spoken[i]), strings.TrimSuffix(w, ".")) {
			t.Errorf("spoken %d: %q, want %q", i, spoken[i], w)
		}
		checkClusters(t, "speech", spoken[i])
	}

	// Each text in its own language, as speech-dispatcher passed it to the module.
	if langs := strings.Join(sd.Languages(), " "); langs != "yo en ar en he" {
		t.Errorf("spoken in %q, want yo en ar en he", langs)
	}

	// Braille: each message's first window, the right-to-left ones marked,
	// and no window starting inside a cluster.
	deadline := time.Now().Add(10 * time.Second)
	wantWindows := []string{firstWindow(yoruba, 20), "(rtl) " + firstWindow(arabic, 14), "(rtl) Finished: " + firstWindow(hebrew, 4)}
	for {
		seen := strings.Join(brl.Visuals(), "\n")
		missing := ""
		for _, w := range wantWindows {
			if !strings.Contains(seen, w) {
				missing = w
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("braille never showed %q; it showed %q", missing, brl.Visuals())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, v := range brl.Visuals() {
		checkClusters(t, "braille", v)
	}
}

// firstWindow is the start of text that fits width cells, cut between clusters.
func firstWindow(text string, width int) string {
	var b strings.Builder
	n := 0
	g := uniseg.NewGraphemes(text)
	for g.Next() {
		w := len(g.Runes())
		if n+w > width {
			break
		}
		b.WriteString(g.Str())
		n += w
	}
	return b.String()
}

// checkClusters fails when text starts with a combining mark (a cluster cut
// from its letter) or holds a bidi override.
func checkClusters(t *testing.T, where, text string) {
	t.Helper()
	text = strings.TrimSpace(text)
	for _, r := range text {
		if unicode.Is(unicode.Mn, r) {
			t.Errorf("%s: %q starts with a combining mark: a cluster was split", where, text)
		}
		break
	}
	if strings.ContainsAny(text, "\u202d\u202e") {
		t.Errorf("%s: %q holds a bidi override", where, text)
	}
}
