package tui

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// The prompt pane and line mode's details command read one wording
// (announce.PromptFacts): the pane shows every fact its headline does not,
// each on one line, and the details command says each of them.
func TestPromptOfSharesDetails(t *testing.T) {
	no := false
	for _, ev := range []*protocol.Event{
		{Type: protocol.TypeAwaitingConfirmation, Producer: protocol.Producer{AgentID: "a", AgentName: "Demo"},
			Action: "Pay 86.40 euros", Consequence: "The money\nleaves at once", RiskLevel: "high", Irreversible: &no,
			AllowedReplies: []string{"accept", "reject"}, DefaultDecision: "reject", ExtraContext: json.RawMessage(`{"iban":"PT50"}`)},
		{Type: protocol.TypeAwaitingClarify, Producer: protocol.Producer{AgentID: "a"}, Question: "Which colour?",
			ClarifyContext: "For the car", Choices: []protocol.Choice{{Label: "Blue", Value: "b"}},
			AcceptedResponseKinds: []string{"multiple_choice"}, DefaultResponse: "b", HasDefaultResponse: true},
	} {
		p := &session.Prompt{Number: 1, Event: ev}
		pr := PromptOf(p)
		var want []string
		for _, f := range announce.PromptFacts(p) {
			if !f.Headline {
				want = append(want, f.String())
			}
		}
		if !slices.Equal(pr.Details, want) {
			t.Errorf("pane details %q\nwant %q", pr.Details, want)
		}
		details, _ := protocol.SplitTheirs(announce.PromptDetails(p, p.Deadline))
		for _, d := range pr.Details {
			if strings.Contains(d, "\n") || !strings.Contains(details, d) {
				t.Errorf("pane shows %q; line mode says %q", d, details)
			}
		}
		if pr.Topic != announce.PromptTopic(p) || pr.Agent != announce.Agent(ev) {
			t.Errorf("topic %q, agent %q", pr.Topic, pr.Agent)
		}
	}
}

// A sentence of the listener's with a producer's words marked in it (as
// the details command says) shows the words without the marks.
func TestSayDropsTheirsMarks(t *testing.T) {
	p := &session.Prompt{Number: 1, Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Pay שלום"}}
	pr := &Program{}
	if err := pr.Say(t0, announce.PromptDetails(p, t0)); err != nil {
		t.Fatal(err)
	}
	if got := pr.buf[0].Text; strings.ContainsAny(got, "\u2068\u2069") || !strings.Contains(got, "Action: Pay שלום.") {
		t.Errorf("shown %q", got)
	}
}
