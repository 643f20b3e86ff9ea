package session

import (
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/protocol"
)

// toolCall is a tool.invoked of session "s" numbered seq.
func toolCall(seq int64, tool, risk string, irrev bool, callID string) *protocol.Event {
	e := ev("s", seq, "tool.invoked")
	e.Tool, e.RiskLevel, e.Irreversible, e.ToolCallID = tool, risk, &irrev, callID
	return e
}

// riskyConfirmation is a confirmation of an irreversible high-risk action.
func riskyConfirmation(seq int64, token, tool string) *protocol.Event {
	e := confirmation("s", seq, token)
	yes := true
	e.RiskLevel, e.Irreversible, e.Tool, e.Urgency = "high", &yes, tool, protocol.UrgencyCritical
	return e
}

func stateChanged(seq int64, from, to, summary string) *protocol.Event {
	e := ev("s", seq, "state.changed")
	e.FromState, e.ToState, e.SummaryNormal = from, to, protocol.Text(summary)
	return e
}

// linkLog is what the user hears of the link between tool calls and
// confirmations: safety warnings, resolutions and notes, in order.
func linkLog(r *recorder) []string {
	var out []string
	for _, x := range r.log {
		switch {
		case x.diag != nil && (x.diag.Code == "default-decision" || strings.Contains(x.diag.Message, "no confirmation")):
			out = append(out, "diag: "+x.diag.Message)
		case x.d != nil && x.d.Note != "":
			out = append(out, x.d.Kind.String()+": "+x.d.Note)
		}
	}
	return out
}

func TestToolConfirmationLinks(t *testing.T) {
	accept := func(e *Engine, n int) {
		r, err := e.Confirm(n, protocol.DecisionAccept, at(1))
		if err != nil {
			panic(err)
		}
		e.Sent(r, at(1))
	}
	reject := func(e *Engine, n int) {
		r, err := e.Confirm(n, protocol.DecisionReject, at(1))
		if err != nil {
			panic(err)
		}
		e.Sent(r, at(1))
	}
	type step struct {
		ev  *protocol.Event
		act func(*Engine) // instead of an event
	}
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"accepted, then the tool runs", []step{
			{ev: riskyConfirmation(1, "a", "")}, {act: func(e *Engine) { accept(e, 1) }},
			{ev: toolCall(2, "delete_files", "high", true, "c1")}},
			[]string{"event: Started after you accepted prompt 1."}},
		{"policy accepted", []step{
			{ev: confirmation("s", 1, "a")}, {act: func(e *Engine) {
				r, _ := e.ConfirmBy(1, protocol.DecisionAccept, "auto:policy:drafts", at(1))
				e.Sent(r, at(1))
			}},
			{ev: toolCall(2, "save_draft", "low", false, "")}},
			[]string{"event: Started after your policy accepted prompt 1."}},
		{"rejected, and the tool runs anyway", []step{
			{ev: riskyConfirmation(1, "a", "delete_files")}, {act: func(e *Engine) { reject(e, 1) }},
			{ev: toolCall(2, "delete_files", "low", false, "")}},
			[]string{"safety-warning: Tool delete files was started although prompt 1 was rejected."}},
		{"risky tool while its prompt waits", []step{
			{ev: riskyConfirmation(1, "a", "")},
			{ev: toolCall(2, "delete_files", "high", true, "")}},
			[]string{"safety-warning: Tool delete files was started while prompt 1 is still waiting for your answer."}},
		{"harmless tool while a prompt waits", []step{
			{ev: riskyConfirmation(1, "a", "")},
			{ev: toolCall(2, "read_file", "low", false, "")}},
			[]string{"event: Prompt 1 is still waiting for your answer."}},
		{"deployed order: tool call, then its confirmation", []step{
			{ev: toolCall(1, "delete_files", "high", true, "")},
			{ev: riskyConfirmation(2, "a", "")}, {act: func(e *Engine) { accept(e, 1) }},
			{ev: ev("s", 3, "tool.completed")}},
			// Told at once, as the capture checker tells it (spec 4.3.1), and
			// the confirmation that follows is still linked to the call.
			[]string{"safety-warning: Tool delete files was started without your confirmation, and it cannot be undone.",
				"event: It is about the tool delete files announced just before; the agent must not go on until you answer."}},
		{"risky tool call never confirmed", []step{
			{ev: toolCall(1, "delete_files", "medium", true, "")},
			{ev: ev("s", 2, "tool.completed")}},
			[]string{"safety-warning: Tool delete files was started without your confirmation, and it cannot be undone."}},
		{"irreversible low-risk call never confirmed is a diagnostic", []step{
			{ev: toolCall(1, "rename", "low", true, "")}, {ev: ev("s", 2, "tool.completed")}},
			[]string{"diag: Session s: tool rename cannot be undone but no confirmation was asked for it."}},
		{"a confirmation naming another tool does not link", []step{
			{ev: riskyConfirmation(1, "a", "send_mail")}, {act: func(e *Engine) { accept(e, 1) }},
			{ev: toolCall(2, "delete_files", "high", true, "")},
			{ev: ev("s", 3, "session.completed")}},
			[]string{"safety-warning: Tool delete files was started without your confirmation, and it cannot be undone."}},
		{"accepted elsewhere (spec 6.7.2)", []step{
			{ev: riskyConfirmation(1, "a", "")},
			{ev: stateChanged(2, "awaiting_input", "calling_tool", "User accepted; proceeding.")},
			{ev: toolCall(3, "delete_files", "high", true, "")}},
			[]string{"prompt-resolved: Prompt 1 was settled elsewhere and can no longer be answered; the agent is now calling tool. User accepted; proceeding.",
				"event: Started after prompt 1 was settled elsewhere."}},
		{"default accept on an irreversible high-risk action (spec 6.4.1)", []step{
			{ev: func() *protocol.Event { e := riskyConfirmation(1, "a", ""); e.DefaultDecision = "accept"; return e }()}},
			[]string{"safety-warning: Prompt 1 breaks the AAEP rules: it cannot be undone, its risk is high, and yet the agent will accept it if you do not answer. Answer it yourself."}},
		{"default accept on a reversible high-risk action is only a SHOULD", []step{
			{ev: func() *protocol.Event {
				e := confirmation("s", 1, "a")
				e.RiskLevel, e.DefaultDecision = "high", "accept"
				return e
			}()}},
			[]string{"diag: Session s: a confirmation of high risk that can be undone defaults to accept; the AAEP rules say it should default to reject."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{})
			e.Handle(ev("s", 0, "session.started"), t0)
			for _, st := range tt.steps {
				if st.act != nil {
					st.act(e)
					continue
				}
				e.Handle(st.ev, at(1))
			}
			if got := linkLog(r); !equal(got, tt.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s\nlog:%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"), r.dump())
			}
			for _, x := range r.log {
				if x.d != nil && x.d.Kind == KindSafetyWarning && x.d.Event == nil {
					t.Errorf("a safety warning without its event: %v", x.d.Note)
				}
			}
		})
	}
}

func TestResolvedPromptCannotBeAnswered(t *testing.T) {
	e, _ := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 1, "a"), t0)
	e.Handle(stateChanged(2, "awaiting_input", "calling_tool", ""), t0)
	if len(e.Pending()) != 0 {
		t.Fatalf("still pending: %v", e.Pending())
	}
	if _, err := e.Confirm(1, protocol.DecisionAccept, t0); err == nil {
		t.Fatal("a prompt settled elsewhere was answered")
	}
}

// The tool a prompt is about: its own, or the tool call just before it.
func TestPromptTool(t *testing.T) {
	e, _ := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(toolCall(1, "save_draft", "low", false, ""), t0)
	e.Handle(confirmation("s", 2, "a"), t0)
	e.Handle(ev("s", 3, "progress.updated"), t0)
	e.Handle(confirmation("s", 4, "b"), t0)
	own := riskyConfirmation(5, "c", "send_mail")
	e.Handle(own, t0)
	var got []string
	for _, p := range e.Pending() {
		got = append(got, p.Tool)
	}
	if want := []string{"save_draft", "", "send_mail"}; !equal(got, want) {
		t.Fatalf("tools %q, want %q", got, want)
	}
}

// Another subscriber rejected the prompt: the producer says so the way spec
// §6.7.2 recommends, awaiting_input back to thinking. That is not the agent
// withdrawing it.
func TestRejectedElsewhereIsNotWithdrawn(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 1, "a"), t0)
	e.Handle(stateChanged(2, "awaiting_input", "thinking", "No go-ahead; the payment is off."), t0)
	if c := r.deliveries(KindPromptCancelled); len(c) != 0 {
		t.Fatalf("announced as withdrawn by the agent:%s", r.dump())
	}
	res := r.deliveries(KindPromptResolved)
	want := "Prompt 1 was settled elsewhere, answered on another screen or withdrawn, and can no longer be answered; the agent is now thinking. No go-ahead; the payment is off."
	if len(res) != 1 || res[0].Note != want {
		t.Fatalf("got %v, want one resolution: %q", r.dump(), want)
	}
	if _, err := e.Confirm(1, protocol.DecisionAccept, t0); err == nil || !strings.Contains(err.Error(), "settled elsewhere") {
		t.Fatalf("answering it: %v", err)
	}

	// Going back to thinking from another state is work the prompt does
	// not block (spec §6.1): the prompt still waits.
	r.reset()
	e.Handle(confirmation("s", 3, "b"), t0)
	e.Handle(stateChanged(4, "calling_tool", "thinking", ""), t0)
	if c := r.deliveries(KindPromptCancelled); len(c) != 0 {
		t.Fatalf("withdrawn by a state change that did not leave awaiting_input:%s", r.dump())
	}
	if _, err := e.Confirm(2, protocol.DecisionAccept, t0); err != nil {
		t.Fatalf("answering it: %v", err)
	}
}

// An agent that goes on streaming, thinking and reporting progress while
// its prompt waits has not settled it (issue 22: every ACP agent does
// this): the user's accept is still built and sent. Only a reply, the
// agent leaving awaiting_input, the prompt's timeout or the session's end
// settle a prompt.
func TestLaterEventsDoNotSettleAPrompt(t *testing.T) {
	later := []*protocol.Event{
		with(ev("s", 2, "output.streaming"), func(e *protocol.Event) { e.Chunk = "While you decide" }),
		stateChanged(3, "writing_output", "thinking", "Thinking on."),
		stateChanged(4, "thinking", "deciding", ""),
		ev("s", 5, "progress.updated"),
		ev("s", 6, "tool.invoked"),
		ev("s", 7, "tool.completed"),
		stateChanged(8, "deciding", "awaiting_input", ""),
	}
	e, r := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 1, "a"), t0)
	for _, l := range later {
		e.Handle(l, t0)
	}
	for _, k := range []DeliveryKind{KindPromptCancelled, KindPromptResolved, KindPromptStale, KindPromptExpired} {
		if d := r.deliveries(k); len(d) != 0 {
			t.Fatalf("the prompt was settled by a later event:%s", r.dump())
		}
	}
	if len(e.Pending()) != 1 {
		t.Fatalf("%d prompts waiting, want 1", len(e.Pending()))
	}
	if _, err := e.Confirm(1, protocol.DecisionAccept, t0); err != nil {
		t.Fatalf("accept after the agent went on: %v", err)
	}

	// What does settle it: the agent leaving awaiting_input.
	e.Handle(confirmation("s", 9, "b"), t0)
	e.Handle(stateChanged(10, "awaiting_input", "calling_tool", "Accepted elsewhere."), t0)
	if d := r.deliveries(KindPromptResolved); len(d) != 2 || len(e.Pending()) != 0 { // the accept was built, not sent
		t.Fatalf("not settled by leaving awaiting_input:%s", r.dump())
	}
}

// An irreversible tool call with no confirmation before it is told at once
// (spec §4.3.1), not when a later event shows none followed: the agent may
// be doing it while the stream is silent.
func TestUnconfirmedIrreversibleWarnsLive(t *testing.T) {
	for _, tt := range []struct {
		name string
		call *protocol.Event
		want string // "warning" or "diagnostic"
	}{
		{"risky", toolCall(1, "delete_files", "high", true, ""), "warning"},
		{"low risk", toolCall(1, "rename", "low", true, ""), "diagnostic"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{})
			e.Handle(ev("s", 0, "session.started"), t0)
			r.reset()
			e.Handle(tt.call, t0) // and then nothing more arrives
			var got []string
			for _, x := range r.log {
				switch {
				case x.d != nil && x.d.Kind == KindSafetyWarning:
					got = append(got, "warning")
				case x.diag != nil && strings.Contains(x.diag.Message, "no confirmation"):
					got = append(got, "diagnostic")
				}
			}
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("got %v, want one %s at once:%s", got, tt.want, r.dump())
			}
			for _, x := range r.log { // the checker's rule code, on either form
				if x.d != nil && x.d.Kind == KindSafetyWarning && x.d.Rule != protocol.RuleUnconfirmedIrreversible ||
					x.diag != nil && x.diag.Code != protocol.RuleUnconfirmedIrreversible {
					t.Errorf("rule code missing: %v", x)
				}
			}
		})
	}
}

// Our answer reached the producer after another subscriber's (first reply
// wins, spec §6.7.1): the producer refused it as settled. The prompt is
// settled elsewhere, not still waiting, and can no longer be answered.
func TestAnswerRefusedAsSettledElsewhere(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 1, "a"), t0)
	rep, err := e.Confirm(1, protocol.DecisionAccept, at(1))
	if err != nil {
		t.Fatal(err)
	}
	if !e.SettledElsewhere(rep, at(1)) {
		t.Fatal("SettledElsewhere refused a pending prompt")
	}
	res := r.deliveries(KindPromptResolved)
	want := "Prompt 1 was already settled elsewhere, probably answered on another screen; the agent did not take your answer."
	if len(res) != 1 || res[0].Note != want {
		t.Fatalf("got %s, want one resolution: %q", r.dump(), want)
	}
	if len(e.Pending()) != 0 {
		t.Fatal("still pending")
	}
	if _, err := e.Confirm(1, protocol.DecisionReject, at(2)); err == nil || !strings.Contains(err.Error(), "settled elsewhere") {
		t.Fatalf("answering again: %v", err)
	}
	if e.SettledElsewhere(rep, at(2)) {
		t.Fatal("settled twice")
	}
}

// A subscription that told the producer nobody here can answer: the agent
// leaving awaiting_input is the producer applying the default because of
// that, said so, with the default it took; without SetAnswerless it is
// settled elsewhere.
func TestAnswerlessPromptTookItsDefault(t *testing.T) {
	for _, tc := range []struct {
		name       string
		answerless func(*Prompt) bool
		want       string
	}{
		{"can answer", nil,
			"Prompt 1 was settled elsewhere, answered on another screen or withdrawn, and can no longer be answered; the agent is now thinking. No go-ahead; the payment is off."},
		{"told the producer it cannot", func(*Prompt) bool { return true },
			"Prompt 1 took its default decision, to reject: nobody here can answer any more and the producer was told so, so it applied the default. The agent is now thinking. No go-ahead; the payment is off."},
		{"cannot answer other kinds", func(p *Prompt) bool { return p.Event.Type != protocol.TypeAwaitingConfirmation },
			"Prompt 1 was settled elsewhere, answered on another screen or withdrawn, and can no longer be answered; the agent is now thinking. No go-ahead; the payment is off."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, r := newTest(Config{})
			e.SetAnswerless(tc.answerless)
			e.Handle(ev("s", 0, "session.started"), t0)
			e.Handle(confirmation("s", 1, "a"), t0)
			e.Handle(stateChanged(2, "awaiting_input", "thinking", "No go-ahead; the payment is off."), t0)
			res := r.deliveries(KindPromptResolved)
			if len(res) != 1 || res[0].Note != tc.want {
				t.Fatalf("got %v, want one resolution: %q", r.dump(), tc.want)
			}
		})
	}
}
