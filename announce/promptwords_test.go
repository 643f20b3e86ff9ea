package announce_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// TestPendingSummaryOneStop: a prompt's own closing mark is never followed
// by another full stop ("…book the table for?." and "…Lisbon Energy..").
func TestPendingSummaryOneStop(t *testing.T) {
	q := &session.Prompt{Number: 2, Event: &protocol.Event{Type: protocol.TypeAwaitingClarify, Question: "Which time should I book the table for?"}}
	c := &session.Prompt{Number: 1, Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Transfer 86.40 euros to Lisbon Energy."}}
	for _, p := range [][]*session.Prompt{{q}, {c}, {c, q}, {q, c}} {
		got := announce.PendingSummary(p)
		for _, bad := range []string{"..", "?.", "!.", ".;"} {
			if strings.Contains(got, bad) {
				t.Errorf("PendingSummary = %q: has %q", got, bad)
			}
		}
	}
}

// hostile is what a producer may put in a field to move the cursor, clear
// the screen, reverse what follows or start a line of its own.
const hostile = "x\x1b[2J\x1b]52;c;cXVpdA==\x07\u202e\u2066\r\n12:00:00 accept 1\x9b31m\x00"

// Every producer string a prompt's wording reads reaches it sanitized: no
// escape, control or bidi-override character, in the details, the pending
// line and summary, and each fact the TUI shows.
func TestPromptWordsSanitized(t *testing.T) {
	h := protocol.Text(hostile)
	prod := protocol.Producer{AgentID: hostile, AgentName: h}
	confirm := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Producer: prod, Action: h, Consequence: h,
		RiskLevel: hostile, AllowedReplies: []string{hostile}, DefaultDecision: hostile, SummaryDetailed: h,
		ExtraContext: json.RawMessage(`{"note":"` + strings.ReplaceAll(hostile, "\x1b", `\u001b`) + "\x1b[2J\"}")}
	question := &protocol.Event{Type: protocol.TypeAwaitingClarify, Producer: prod, Question: h, ClarifyContext: h,
		Choices: []protocol.Choice{{Label: h, Value: hostile}}, AcceptedResponseKinds: []string{hostile},
		DefaultResponse: h, HasDefaultResponse: true, SummaryDetailed: h}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var prompts []*session.Prompt
	for i, ev := range []*protocol.Event{confirm, question} {
		prompts = append(prompts, &session.Prompt{Number: i + 1, Event: ev, Deadline: now.Add(time.Minute)})
	}
	check := func(what, s string) {
		t.Helper()
		s, _ = protocol.SplitTheirs(s) // the marks are ours, for the writer
		if i := strings.IndexFunc(s, unsafeRune); i >= 0 {
			t.Errorf("%s holds %q at %d: %q", what, s[i:i+1], i, s)
		}
	}
	for _, p := range prompts {
		check("PromptDetails", announce.PromptDetails(p, now))
		check("PendingLine", announce.PendingLine(p, now))
		check("PromptTopic", announce.PromptTopic(p))
		check("Agent", announce.Agent(p.Event))
		for _, f := range announce.PromptFacts(p) {
			check("fact "+f.Label, f.Value)
		}
	}
	check("PendingSummary", announce.PendingSummary(prompts))
}

// unsafeRune is a rune that must never reach a terminal from a producer:
// a control character (a line break included: one fact is one line) or a
// bidi override or isolate.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// A prompt's details name every fact once, in order, each a sentence of
// its own; the headline facts are marked for views that show them apart.
func TestPromptDetails(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	no := false
	ev := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Producer: protocol.Producer{AgentID: "demo"},
		Action: "Pay 86.40 euros", Consequence: "The money leaves at once.", RiskLevel: "high", Irreversible: &no,
		AllowedReplies: []string{"accept", "reject"}, DefaultDecision: "reject"}
	p := &session.Prompt{Number: 4, Event: ev, Deadline: now.Add(90 * time.Second)}
	want := "Prompt 4, confirmation from demo, 1 minute 30 seconds left. Action: Pay 86.40 euros. Consequence: The money leaves at once. " +
		"Risk: high. Can be undone: yes. Allowed answers: accept, reject. Default decision: reject."
	if got, _ := protocol.SplitTheirs(announce.PromptDetails(p, now)); got != want {
		t.Errorf("PromptDetails:\n got %s\nwant %s", got, want)
	}
	var head []string
	for _, f := range announce.PromptFacts(p) {
		if f.Headline {
			head = append(head, f.Label)
		}
	}
	if got := strings.Join(head, ", "); got != "Action, Risk, Default decision" {
		t.Errorf("headline facts %s", got)
	}
	ev.Producer.AgentID = ""
	if got := announce.PromptDetails(p, now); !strings.HasPrefix(got, "Prompt 4, confirmation, 1 minute 30 seconds left. Action:") {
		t.Errorf("PromptDetails without an agent: %s", got)
	}
	want = "Prompt 4, confirmation, 1 minute 30 seconds left: Pay 86.40 euros."
	if got, _ := protocol.SplitTheirs(announce.PendingLine(p, now)); got != want {
		t.Errorf("PendingLine %q, want %q", got, want)
	}
}

// The producer's words in a prompt's details, pending line and summary are
// marked as theirs, so line mode isolates them when they run right to
// left: a Hebrew action cannot carry our label or the numbers beside it
// to the other side of the line.
func TestPromptWordsIsolateTheirs(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ev := &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Producer: protocol.Producer{AgentID: "a", AgentName: "עוזר"},
		Action: "שלום 42", Consequence: "מריم 7", RiskLevel: "high"}
	q := &protocol.Event{Type: protocol.TypeAwaitingClarify, Producer: protocol.Producer{AgentID: "a"}, Question: "איזה?",
		Choices: []protocol.Choice{{Label: "כחול", Value: "כ"}}}
	ps := []*session.Prompt{{Number: 1, Event: ev, Deadline: now.Add(time.Minute)}, {Number: 2, Event: q, Deadline: now.Add(time.Minute)}}
	for _, tt := range []struct {
		text string
		want []string
	}{
		{announce.PromptDetails(ps[0], now), []string{"from \u2068עוזר\u2069,", "Action: \u2068שלום 42\u2069.", "Consequence: \u2068מריم 7\u2069."}},
		{announce.PromptDetails(ps[1], now), []string{"Question: \u2068איזה?\u2069", "Choice 1 (value \u2068כ\u2069): \u2068כחול\u2069."}},
		{announce.PendingLine(ps[0], now), []string{"left: \u2068שלום 42\u2069."}},
		{announce.PendingSummary(ps), []string{"confirmation: \u2068שלום 42\u2069.", "question: \u2068איזה?\u2069"}},
	} {
		var out bytes.Buffer
		w := line.NewWriter(&out, nil, line.WriterOptions{NoTime: true})
		if err := w.Say(now, tt.text); err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q lacks %q", out.String(), want)
			}
		}
	}
}
