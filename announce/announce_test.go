package announce

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

type recorder struct{ got []Announcement }

func (r *recorder) Announce(a Announcement) error { r.got = append(r.got, a); return nil }

func (r *recorder) texts() []string {
	var s []string
	for _, a := range r.got {
		s = append(s, a.Text)
	}
	return s
}

func chunk(session, output, text, hint string, complete bool) *protocol.Event {
	return &protocol.Event{Type: protocol.TypeOutputStreaming, SessionID: session, OutputID: output,
		Chunk: protocol.Text(text), CoalesceHint: hint, Complete: complete,
		Producer: protocol.Producer{AgentID: "demo", AgentName: "Demo"}}
}

func TestCoalescing(t *testing.T) {
	tests := []struct {
		name   string
		chunks []*protocol.Event
		want   []string
	}{
		{"sentences across chunks", []*protocol.Event{
			chunk("s1", "o1", "Your balance is ", "none", false),
			chunk("s1", "o1", "$5.", "none", false),
			chunk("s1", "o1", "00 today. You can ", "none", false),
			chunk("s1", "o1", "save more.", "none", true),
		}, []string{"Your balance is $5.00 today.", "You can save more."}},
		{"producer marks sentences", []*protocol.Event{
			chunk("s1", "o1", "One", "none", false),
			chunk("s1", "o1", " two", "sentence", false),
			chunk("s1", "o1", "three", "completion", true),
		}, []string{"One two", "three"}},
		{"outputs kept apart", []*protocol.Event{
			chunk("s1", "a", "First answer ", "none", false),
			chunk("s2", "a", "Second answer. ", "none", false),
			chunk("s1", "a", "ends.", "none", true),
		}, []string{"Second answer.", "First answer ends."}},
		{"RTL terminators", []*protocol.Event{
			chunk("s1", "o1", "مرحبا؟ كيف ", "none", false),
			chunk("s1", "o1", "حالك", "none", true),
		}, []string{"مرحبا؟", "كيف حالك"}},
		{"hostile chunk sanitized", []*protocol.Event{
			chunk("s1", "o1", "Done\x1b]0;pwned\x07 \u202eok.", "none", true),
		}, []string{"Done ok."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			a := New(Config{}, r)
			for _, ev := range tt.chunks {
				a.Deliver(session.Delivery{Kind: session.KindEvent, Event: ev})
			}
			a.Flush(time.Time{})
			if got := r.texts(); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLongOutputWithoutSentencesIsBounded(t *testing.T) {
	r := &recorder{}
	a := New(Config{}, r)
	word := strings.Repeat("x", 99) + " "
	for i := 0; i < 100; i++ {
		a.Deliver(session.Delivery{Kind: session.KindEvent, Event: chunk("s", "o", word, "none", false)})
	}
	if len(r.got) == 0 {
		t.Fatal("10 KB without a sentence end was never read out")
	}
	for _, an := range r.got {
		if len(an.Text) > maxStreamBytes {
			t.Errorf("announcement of %d bytes exceeds the bound", len(an.Text))
		}
	}
	if n := len(a.streams.m); n != 1 {
		t.Errorf("%d streams held, want 1", n)
	}
}

func TestStreamCountIsBounded(t *testing.T) {
	r := &recorder{}
	a := New(Config{}, r)
	for i := 0; i < 3*maxStreams; i++ {
		a.Deliver(session.Delivery{Kind: session.KindEvent, Event: chunk("s", "o"+strconv.Itoa(i), "held", "none", false)})
	}
	if n := len(a.streams.m); n > maxStreams {
		t.Errorf("%d streams held, bound is %d", n, maxStreams)
	}
	// The text of every output pushed out of the bound was read, not lost.
	if got, want := len(r.got), 2*maxStreams; got != want {
		t.Errorf("%d outputs read out on eviction, want %d", got, want)
	}
	if len(r.got) > 0 && (r.got[0].Text != "held" || r.got[0].Kind != "output") {
		t.Errorf("first evicted output read as %q (%s)", r.got[0].Text, r.got[0].Kind)
	}
}

func TestTerminalEventReadsHeldOutputFirst(t *testing.T) {
	r := &recorder{}
	a := New(Config{}, r)
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: chunk("s1", "o1", "Almost there", "none", false)})
	a.Deliver(session.Delivery{Kind: session.KindEvent, Event: &protocol.Event{Type: protocol.TypeSessionCompleted, SessionID: "s1", SummaryNormal: "All done.",
		Producer: protocol.Producer{AgentID: "demo"}}}) // the same agent as the chunk (TestOutputsOfTwoAgentsKeptApart)
	want := []string{"Almost there", "Finished: All done."}
	if got := r.texts(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPriority(t *testing.T) {
	tests := []struct {
		ev   protocol.Event
		want Priority
	}{
		{protocol.Event{Type: protocol.TypeStateChanged, ToState: "thinking"}, Normal},
		{protocol.Event{Type: protocol.TypeStateChanged, ToState: "x", Urgency: protocol.UrgencyBackground}, Background},
		{protocol.Event{Type: protocol.TypeSessionErrored, SummaryNormal: "x"}, Critical}, // critical by type
		{protocol.Event{Type: "ext:thing", Urgency: protocol.UrgencyCritical, SummaryNormal: "x"}, Critical},
	}
	for _, tt := range tests {
		r := &recorder{}
		ev := tt.ev
		New(Config{}, r).Deliver(session.Delivery{Kind: session.KindEvent, Event: &ev})
		if len(r.got) != 1 || r.got[0].Priority != tt.want {
			t.Errorf("%s: got %+v, want priority %v", tt.ev.Type, r.got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	yes := true
	deadline := time.Date(2026, 1, 1, 12, 0, 30, 0, time.UTC)
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		d         session.Delivery
		verbosity string
		want      string
	}{
		{"summary at verbosity", session.Delivery{Event: &protocol.Event{Type: protocol.TypeSessionStarted,
			SummaryTerse: "Started.", SummaryNormal: "Planner is working."}}, "terse", "Started."},
		{"verbosity falls back", session.Delivery{Event: &protocol.Event{Type: protocol.TypeSessionStarted,
			SummaryNormal: "Planner is working."}}, "detailed", "Planner is working."},
		{"synthesized start", session.Delivery{Event: &protocol.Event{Type: protocol.TypeSessionStarted,
			RequestText: "Plan my savings"}}, "normal", "Started. Plan my savings."},
		{"tool failed reads differently", session.Delivery{Event: &protocol.Event{Type: protocol.TypeToolCompleted,
			Tool: "fetch_balance", Status: "error", ErrorMessage: "Bank unreachable."}}, "normal",
			"Tool failed: fetch balance. Bank unreachable."},
		{"errored", session.Delivery{Event: &protocol.Event{Type: protocol.TypeSessionErrored, SummaryNormal: "The bank is down.",
			ErrorCategory: "transient", RemediationHint: "Try again later."}}, "normal",
			"Error: The bank is down. This may be temporary. What you can do: Try again later."},
		{"cancelled", session.Delivery{Event: &protocol.Event{Type: protocol.TypeSessionCancelled, SummaryNormal: "Stopped.",
			CancelledBy: "user", PartialResult: "Two files copied"}}, "normal",
			"Cancelled by you: Stopped. Partial result: Two files copied."},
		{"completed", session.Delivery{Event: &protocol.Event{Type: protocol.TypeSessionCompleted, SummaryNormal: "Plan ready."}}, "normal",
			"Finished: Plan ready."},
		{"progress synthesized", session.Delivery{Event: &protocol.Event{Type: protocol.TypeProgressUpdated,
			Progress: protocol.Progress{Percent: 40, HasPercent: true, Step: 2, TotalSteps: 5}}}, "normal",
			"Progress: 40 percent, step 2 of 5."},
		{"unknown type", session.Delivery{Event: &protocol.Event{Type: "medai:patient.consulted"}}, "normal",
			"An event of a type this listener does not know: medai:patient.consulted."},
		{"confirmation", session.Delivery{At: at, Prompt: &session.Prompt{Number: 1, Deadline: deadline},
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.",
				Consequence: "They are gone for good.", RiskLevel: "high", Irreversible: &yes, DefaultDecision: "reject"}}, "normal",
			"Confirmation needed, prompt 1: Delete 3 files. Consequence: They are gone for good. Risk: high. This cannot be undone. If you do not answer within 30 seconds, the agent will reject."},
		{"clarification", session.Delivery{At: at, Prompt: &session.Prompt{Number: 2, Deadline: deadline.Add(time.Minute)},
			Event: &protocol.Event{Type: protocol.TypeAwaitingClarify, Question: "Which account?",
				Choices:         []protocol.Choice{{Value: "chk", Label: "Checking"}, {Value: "sav", Label: "Savings"}},
				DefaultResponse: "chk", HasDefaultResponse: true}}, "normal",
			"Question, prompt 2: Which account? Choices: 1, Checking; 2, Savings. Default answer: Checking. Time to answer: 1 minute 30 seconds."},
		{"expired", session.Delivery{Kind: session.KindPromptExpired, Prompt: &session.Prompt{Number: 1},
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.", DefaultDecision: "reject"}}, "normal",
			"Prompt 1 expired without an answer: Delete 3 files. The default decision applies: reject."},
		{"question expired, one mark", session.Delivery{Kind: session.KindPromptExpired, Prompt: &session.Prompt{Number: 2},
			Event: &protocol.Event{Type: protocol.TypeAwaitingClarify, Question: "Which time?", DefaultResponse: "20:00", HasDefaultResponse: true}}, "normal",
			"Prompt 2 expired without an answer: Which time? The default decision applies: use the answer \"20:00\"."},
		// Quitting is not expiring (issue 24 item 3): each way a prompt
		// stops waiting says what happened, and whether the producer knows.
		{"you quit", session.Delivery{Kind: session.KindPromptExpired, Cause: session.CauseQuit, Prompt: &session.Prompt{Number: 1},
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.", DefaultDecision: "reject"}}, "normal",
			"You quit before answering prompt 1: Delete 3 files. The producer was told the subscription closed, so the agent will reject."},
		{"you quit, producer not told", session.Delivery{Kind: session.KindPromptExpired, Cause: session.CauseQuitUntold, Prompt: &session.Prompt{Number: 1},
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.", DefaultDecision: "reject"}}, "normal",
			"You quit before answering prompt 1: Delete 3 files. The producer could not be told the subscription closed, so it may still be waiting for an answer; its default is to reject."},
		{"agent gone", session.Delivery{Kind: session.KindPromptExpired, Cause: session.CauseGone, Prompt: &session.Prompt{Number: 1},
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.", DefaultDecision: "reject"}}, "normal",
			"The agent went away before prompt 1 was answered: Delete 3 files. No answer was sent; its default is to reject."},
		{"subscription ended", session.Delivery{Kind: session.KindPromptExpired, Cause: session.CauseEnded, Prompt: &session.Prompt{Number: 1},
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.", DefaultDecision: "reject"}}, "normal",
			"The subscription ended before prompt 1 was answered: Delete 3 files. The producer was told, so the agent will reject."},
		{"withdrawn", session.Delivery{Kind: session.KindPromptCancelled, Prompt: &session.Prompt{Number: 3},
			Event: &protocol.Event{Type: protocol.TypeAwaitingClarify, Question: "Which time?"}}, "normal",
			"Prompt 3 was withdrawn by the agent and can no longer be answered: Which time?"},
		{"left unanswered", session.Delivery{Kind: session.KindPromptLeft, Prompt: &session.Prompt{Number: 4},
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files.", TimeoutSeconds: 60}}, "normal",
			"Prompt 4 is left unanswered: Delete 3 files. The agent is still waiting for an answer; none was sent. If nobody answers, the agent will reject when its time runs out."},
		{"not offered", session.Delivery{Kind: session.KindPromptNotOffered, Prompt: &session.Prompt{},
			Note:  "Not offered for an answer: Agent a already has 256 prompts waiting.",
			Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Action: "Delete 3 files."}}, "normal",
			"Not offered for an answer: Agent a already has 256 prompts waiting. It is about: Delete 3 files."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, marked := describe(tt.d, tt.verbosity)
			got, _ := protocol.SplitTheirs(marked) // the words, as sinks get them
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	tests := map[time.Duration]string{
		0: "0 seconds", time.Second: "1 second", 45 * time.Second: "45 seconds",
		2*time.Minute + 5*time.Second: "2 minutes 5 seconds", time.Minute: "1 minute",
		time.Hour + 3*time.Minute: "1 hour 3 minutes", -time.Second: "0 seconds",
	}
	for d, want := range tests {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
