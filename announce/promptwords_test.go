package announce_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/aaep-term/aaep-term/announce"
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
	if got := announce.PromptDetails(p, now); got != want {
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
	if got, want := announce.PendingLine(p, now), "Prompt 4, confirmation, 1 minute 30 seconds left: Pay 86.40 euros."; got != want {
		t.Errorf("PendingLine %q, want %q", got, want)
	}
}
