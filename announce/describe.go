package announce

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// describe puts a delivery into words: the producer's summary at the chosen
// verbosity when it wrote one, else a sentence built from the event's fields.
// It returns the announcement kind and its text.
func describe(d session.Delivery, verbosity string) (kind, text string) {
	ev := d.Event
	if ev == nil {
		return "note", ""
	}
	switch d.Kind {
	case session.KindPromptExpired:
		return "prompt-expired", fmt.Sprintf("Prompt %d expired without an answer: %s The default decision applies: %s.",
			number(d.Prompt), stop(promptTopic(ev)), defaultDecision(ev))
	case session.KindPromptCancelled:
		return "prompt-cancelled", fmt.Sprintf("Prompt %d was withdrawn by the agent and can no longer be answered: %s",
			number(d.Prompt), stop(promptTopic(ev)))
	case session.KindPromptStale:
		return "prompt-stale", fmt.Sprintf("An earlier prompt is already settled and cannot be answered: %s", stop(promptTopic(ev)))
	case session.KindPromptNotOffered:
		return "prompt-not-offered", joinSentences(d.Note, "It is about: "+stop(promptTopic(ev)))
	case session.KindPromptLeft:
		text := fmt.Sprintf("Prompt %d is left unanswered: %s The agent is still waiting for an answer; none was sent.",
			number(d.Prompt), stop(promptTopic(ev)))
		if ev.TimeoutSeconds > 0 {
			text += fmt.Sprintf(" If nobody answers, the agent will %s when its time runs out.", defaultDecision(ev))
		}
		return "prompt-left", text
	case session.KindPromptReminder:
		return "prompt-reminder", reminderWords(d)
	case session.KindPromptResolved:
		return "prompt-resolved", joinSentences(d.Note, "It was about: "+stop(promptTopic(ev)))
	case session.KindSafetyWarning:
		return "safety-warning", "Safety warning: " + d.Note
	case session.KindReplySent:
		return "reply-sent", fmt.Sprintf("Sent your answer to prompt %d: %s.", number(d.Prompt), replyWords(d.Reply))
	}

	summary := ev.Summary(verbosity).String()
	or := func(s string) string {
		if summary != "" {
			return summary
		}
		return s
	}
	switch ev.Type {
	case protocol.TypeSessionStarted:
		return "started", or(joinSentences("Started", ev.RequestText.String()))
	case protocol.TypeSessionCompleted:
		return "completed", "Finished: " + or(joinSentences("The task is complete", ev.OutputSummary.String()))
	case protocol.TypeSessionErrored:
		text := "Error: " + or("the agent stopped because of an error") + errorDetail(ev)
		return "errored", text
	case protocol.TypeSessionCancelled:
		text := "Cancelled" + cancelledBy(ev.CancelledBy) + ": " + or("the task was stopped")
		if p := ev.PartialResult.String(); p != "" {
			text = joinSentences(text, "Partial result: "+p)
		}
		return "cancelled", text
	case protocol.TypeStateChanged:
		return "state", or("Now " + words(ev.ToState) + ".")
	case protocol.TypeProgressUpdated:
		return "progress", or(progressWords(ev))
	case protocol.TypeToolInvoked:
		return "tool", or(joinSentences("Using "+words(ev.Tool), ev.ArgsSummary.String())) + riskWords(ev)
	case protocol.TypeToolCompleted:
		return "tool-done", toolDone(ev, summary)
	case protocol.TypeAwaitingConfirmation:
		return "confirmation", confirmationWords(d, summary)
	case protocol.TypeAwaitingClarify:
		return "clarification", clarificationWords(d)
	case protocol.TypeHandoffRequested:
		return "handoff", "Hand-off requested" + handoffTarget(ev.TargetKind) + ": " + or(ev.Reason.String())
	case protocol.TypeOutputStreaming:
		return "output", ev.Chunk.String()
	}
	// An event type we do not know: its own words, or its name.
	return "event", or("Event " + protocol.Sanitize(ev.Type) + ".")
}

func confirmationWords(d session.Delivery, summary string) string {
	ev := d.Event
	var b strings.Builder
	fmt.Fprintf(&b, "Confirmation needed, prompt %d: %s", number(d.Prompt), ev.Action.String())
	b.WriteString(stakes(ev))
	if summary != "" && summary != ev.Action.String() {
		b.WriteString(" " + summary)
	}
	fmt.Fprintf(&b, " If you do not answer within %s, the agent will %s.", timeLeft(d), defaultDecision(ev))
	return tidy(b.String())
}

func clarificationWords(d session.Delivery) string {
	ev := d.Event
	var b strings.Builder
	fmt.Fprintf(&b, "Question, prompt %d: %s", number(d.Prompt), stop(ev.Question.String()))
	if c := ev.ClarifyContext.String(); c != "" {
		b.WriteString(" Context: " + stop(c))
	}
	if len(ev.Choices) > 0 {
		choices := make([]string, len(ev.Choices))
		for i, c := range ev.Choices {
			choices[i] = fmt.Sprintf("%d, %s", i+1, c.Label.String())
		}
		b.WriteString(" Choices: " + strings.Join(choices, "; ") + ".")
	}
	if ev.HasDefaultResponse && ev.DefaultResponse != "" {
		b.WriteString(" Default answer: " + ev.DefaultResponse.String() + ".")
	}
	fmt.Fprintf(&b, " Time to answer: %s.", timeLeft(d))
	return tidy(b.String())
}

func toolDone(ev *protocol.Event, summary string) string {
	name := words(ev.Tool)
	switch ev.Status {
	case "error":
		t := "Tool failed: " + name
		if summary != "" {
			t += ". " + summary
		}
		if m := ev.ErrorMessage.String(); m != "" {
			t = joinSentences(t, m)
		}
		return t
	case "timeout":
		return "Tool timed out: " + name + ". " + summary
	}
	if summary != "" {
		return summary
	}
	return "Finished " + name + "."
}

func errorDetail(ev *protocol.Event) string {
	var parts []string
	switch ev.ErrorCategory {
	case "transient":
		parts = append(parts, "This may be temporary.")
	case "permanent":
		parts = append(parts, "This will not fix itself.")
	case "requires_user":
		parts = append(parts, "This needs you.")
	}
	if h := ev.RemediationHint.String(); h != "" {
		parts = append(parts, "What you can do: "+h)
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

func progressWords(ev *protocol.Event) string {
	p := ev.Progress
	var parts []string
	if p.HasPercent {
		parts = append(parts, strconv.FormatFloat(p.Percent, 'f', -1, 64)+" percent")
	}
	if p.Step > 0 && p.TotalSteps > 0 {
		parts = append(parts, fmt.Sprintf("step %d of %d", p.Step, p.TotalSteps))
	} else if p.Step > 0 {
		parts = append(parts, fmt.Sprintf("step %d", p.Step))
	}
	text := "Progress"
	if len(parts) > 0 {
		text += ": " + strings.Join(parts, ", ")
	}
	return joinSentences(text, p.Description.String())
}

func riskWords(ev *protocol.Event) string {
	irreversible := ev.Undo().CannotBeUndone()
	switch {
	case ev.RiskLevel == "high" && irreversible:
		return " High risk, cannot be undone."
	case ev.RiskLevel == "high":
		return " High risk."
	case irreversible:
		return " Cannot be undone."
	}
	return ""
}

func cancelledBy(by string) string {
	switch by {
	case "user":
		return " by you"
	case "producer":
		return " by the agent"
	case "timeout":
		return " after a timeout"
	case "system":
		return " by the system"
	}
	return ""
}

func handoffTarget(kind string) string {
	switch kind {
	case "human":
		return " to a person"
	case "specialist_agent":
		return " to a specialist agent"
	case "escalation_queue":
		return " to an escalation queue"
	}
	return ""
}

func defaultDecision(ev *protocol.Event) string {
	if ev.Type == protocol.TypeAwaitingClarify {
		if ev.HasDefaultResponse && ev.DefaultResponse != "" {
			return "use the answer " + strconv.Quote(ev.DefaultResponse.String())
		}
		return "go on without an answer"
	}
	if ev.DefaultDecision == protocol.DecisionAccept {
		return "accept"
	}
	return "reject"
}

func promptTopic(ev *protocol.Event) string {
	if ev.Type == protocol.TypeAwaitingClarify {
		return strings.TrimRight(ev.Question.String(), ". ")
	}
	return strings.TrimRight(ev.Action.String(), ". ")
}

func replyWords(body []byte) string {
	s := string(body)
	switch {
	case strings.Contains(s, `"decision":"accept"`):
		return "accept"
	case strings.Contains(s, `"decision":"reject"`):
		return "reject"
	}
	if i := strings.Index(s, `"response":`); i >= 0 {
		v := s[i+len(`"response":`):]
		if j := strings.IndexAny(v, ",}"); j >= 0 {
			v = v[:j]
		}
		return protocol.Sanitize(v)
	}
	return "answer"
}

func number(p *session.Prompt) int {
	if p == nil {
		return 0
	}
	return p.Number
}

// timeLeft says how long the prompt of d may still be answered, in words.
func timeLeft(d session.Delivery) string {
	if d.Prompt == nil || d.Prompt.Deadline.IsZero() {
		return "the time the agent allows"
	}
	return Duration(d.Prompt.Deadline.Sub(d.At))
}

// Duration says a duration the way a person would, rounded to seconds:
// "45 seconds", "2 minutes 5 seconds", "1 hour 3 minutes".
func Duration(d time.Duration) string {
	s := int64((d + time.Second/2) / time.Second)
	if s < 0 {
		s = 0
	}
	h, m, sec := s/3600, s/60%60, s%60
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	switch {
	case h > 0 && m > 0:
		return unit(h, "hour") + " " + unit(m, "minute")
	case h > 0:
		return unit(h, "hour")
	case m > 0 && sec > 0:
		return unit(m, "minute") + " " + unit(sec, "second")
	case m > 0:
		return unit(m, "minute")
	}
	return unit(sec, "second")
}

// words turns an identifier such as "fetch_balance" into "fetch balance".
func words(id string) string {
	return protocol.Sanitize(strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return ' '
		}
		return r
	}, id))
}

// joinSentences joins a and b as sentences, adding a full stop where needed.
func joinSentences(a, b string) string {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	switch {
	case b == "":
		return stop(a)
	case a == "":
		return stop(b)
	}
	return stop(a) + " " + stop(b)
}

func stop(s string) string {
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:;") {
		return s
	}
	return s + "."
}

func tidy(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
