package announce

import (
	"encoding/json"
	"fmt"
	"github.com/aaep-term/aaep-term/internal/prose"
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
		return "prompt-expired", expiredWords(d)
	case session.KindPromptCancelled:
		return "prompt-cancelled", fmt.Sprintf("Prompt %d was withdrawn by the agent and can no longer be answered: %s",
			number(d.Prompt), prose.Stop(promptTopic(ev)))
	case session.KindPromptStale:
		return "prompt-stale", fmt.Sprintf("An earlier prompt is already settled and cannot be answered: %s", prose.Stop(promptTopic(ev)))
	case session.KindPromptNotOffered:
		return "prompt-not-offered", prose.Join(d.Note, "It is about: "+prose.Stop(promptTopic(ev)))
	case session.KindPromptLeft:
		return "prompt-left", leftWords(d)
	case session.KindPromptReminder:
		return "prompt-reminder", reminderWords(d)
	case session.KindPromptResolved:
		return "prompt-resolved", prose.Join(d.Note, "It was about: "+prose.Stop(promptTopic(ev)))
	case session.KindSafetyWarning:
		return "safety-warning", "Safety warning: " + d.Note
	case session.KindReplySent:
		return "reply-sent", prose.Stop(fmt.Sprintf("Sent your answer to prompt %d: %s", number(d.Prompt), replyWords(ev, d.Reply)))
	}

	kind, summary := alone(ev, verbosity)
	if summary != "" {
		return kind, protocol.Theirs(summary)
	}
	if kind == "" {
		summary = ev.Summary(verbosity).String()
	}
	// or gives the producer's own words, marked as theirs, else ours,
	// built only when they are said.
	or := func(ours func() string) string {
		if summary != "" {
			return protocol.Theirs(summary)
		}
		return ours()
	}
	switch ev.Type {
	case protocol.TypeSessionStarted:
		return "started", prose.Join("Started", theirs(ev.RequestText))
	case protocol.TypeSessionCompleted:
		return "completed", "Finished: " + or(func() string { return prose.Join("The task is complete", theirs(ev.OutputSummary)) })
	case protocol.TypeSessionErrored:
		return "errored", prose.Join(append([]string{"Error: " + or(func() string { return "the agent stopped because of an error" })}, errorDetail(ev)...)...)
	case protocol.TypeSessionCancelled:
		text := "Cancelled" + cancelledBy(ev.CancelledBy) + ": " + or(func() string { return "the task was stopped" })
		if p := ev.PartialResult.String(); p != "" {
			text = prose.Join(text, "Partial result: "+protocol.Theirs(p))
		}
		return "cancelled", text
	case protocol.TypeStateChanged:
		return "state", stateWords(ev.ToState)
	case protocol.TypeProgressUpdated:
		return "progress", progressWords(ev)
	case protocol.TypeToolInvoked:
		return "tool", or(func() string { return prose.Join("Using "+toolName(ev), theirs(ev.ArgsSummary)) }) + riskWords(ev)
	case protocol.TypeToolCompleted:
		return "tool-done", toolDone(ev, summary)
	case protocol.TypeAwaitingConfirmation:
		return "confirmation", confirmationWords(d, summary)
	case protocol.TypeAwaitingClarify:
		return "clarification", clarificationWords(d)
	case protocol.TypeHandoffRequested:
		text := "Hand-off requested" + handoffTarget(ev.TargetKind)
		if why := or(func() string { return theirs(ev.Reason) }); why != "" {
			return "handoff", prose.Stop(text + ": " + why)
		}
		return "handoff", text + "."
	case protocol.TypeOutputStreaming:
		return "output", theirs(ev.Chunk)
	}
	// An event type we do not know: its own words, or its name.
	return "event", or(func() string {
		return "An event of a type this listener does not know: " +
			protocol.Theirs(strings.TrimPrefix(protocol.Sanitize(ev.Type), "aaep:")) + "."
	})
}

// alone returns the kind of ev and its producer's summary at verbosity
// when the event is announced in those words alone, nothing of ours built
// beside them (a session started, a state changed, progress, a tool call
// that did not fail); "" otherwise.
func alone(ev *protocol.Event, verbosity string) (kind, summary string) {
	switch ev.Type {
	case protocol.TypeSessionStarted:
		kind = "started"
	case protocol.TypeStateChanged:
		kind = "state"
	case protocol.TypeProgressUpdated:
		kind = "progress"
	case protocol.TypeToolCompleted:
		if ev.Status == "error" || ev.Status == "timeout" {
			return "", ""
		}
		kind = "tool-done"
	default:
		return "", ""
	}
	return kind, ev.Summary(verbosity).String()
}

// expiredWords says why prompt d stopped waiting with its default
// decision: its time ran out, the user quit (and whether the producer was
// told), the agent went away, or the subscription ended.
func expiredWords(d session.Delivery) string {
	ev, n, topic := d.Event, number(d.Prompt), prose.Stop(promptTopic(d.Event))
	switch d.Cause {
	case session.CauseQuit:
		return fmt.Sprintf("You quit before answering prompt %d: %s The producer was told the subscription closed, so the agent will %s.", n, topic, defaultDecision(ev))
	case session.CauseQuitUntold:
		return fmt.Sprintf("You quit before answering prompt %d: %s The producer could not be told the subscription closed, so it may still be waiting for an answer; its default is to %s.", n, topic, defaultDecision(ev))
	case session.CauseGone:
		return fmt.Sprintf("The agent went away before prompt %d was answered: %s No answer was sent; its default is to %s.", n, topic, defaultDecision(ev))
	case session.CauseEnded:
		return fmt.Sprintf("The subscription ended before prompt %d was answered: %s The producer was told, so the agent will %s.", n, topic, defaultDecision(ev))
	}
	return fmt.Sprintf("Prompt %d expired without an answer: %s The default decision applies: %s.", n, topic, defaultDecision(ev))
}

// leftWords says that prompt d is left unanswered: nothing told the
// producer, which may still be waiting.
func leftWords(d session.Delivery) string {
	ev, n, topic := d.Event, number(d.Prompt), prose.Stop(promptTopic(d.Event))
	text := fmt.Sprintf("Prompt %d is left unanswered: %s The agent is still waiting for an answer; none was sent.", n, topic)
	if d.Cause == session.CauseGone {
		text = fmt.Sprintf("The agent's stream ended before prompt %d was answered: %s No answer was sent; if the agent still runs, it may be waiting for one.", n, topic)
	}
	if ev.TimeoutSeconds > 0 {
		text += fmt.Sprintf(" If nobody answers, the agent will %s when its time runs out.", defaultDecision(ev))
	}
	return text
}

func confirmationWords(d session.Delivery, summary string) string {
	ev := d.Event
	var b strings.Builder
	b.WriteString(prose.Stop(fmt.Sprintf("Confirmation needed, prompt %d: %s", number(d.Prompt), theirs(ev.Action))))
	b.WriteString(stakes(ev))
	if summary != "" && summary != ev.Action.String() {
		b.WriteString(" " + prose.Stop(protocol.Theirs(summary)))
	}
	fmt.Fprintf(&b, " If you do not answer within %s, the agent will %s.", timeLeft(d), defaultDecision(ev))
	return once(b.String())
}

func clarificationWords(d session.Delivery) string {
	ev := d.Event
	var b strings.Builder
	fmt.Fprintf(&b, "Question, prompt %d: %s", number(d.Prompt), prose.Stop(theirs(ev.Question)))
	if c := theirs(ev.ClarifyContext); c != "" {
		b.WriteString(" " + prose.Stop("Context: "+c))
	}
	if len(ev.Choices) > 0 {
		choices := make([]string, len(ev.Choices))
		for i, c := range ev.Choices {
			// A label's own full stop would stand before the semicolon.
			choices[i] = fmt.Sprintf("%d, %s", i+1, protocol.Theirs(strings.TrimSuffix(c.Label.String(), ".")))
		}
		b.WriteString(" " + prose.Stop("Choices: "+strings.Join(choices, "; ")))
	}
	if ev.HasDefaultResponse && ev.DefaultResponse != "" {
		b.WriteString(" " + prose.Stop("Default answer: "+protocol.Theirs(choiceWords(ev, ev.DefaultResponse.String()))))
	}
	fmt.Fprintf(&b, " Time to answer: %s.", timeLeft(d))
	return once(b.String())
}

func toolDone(ev *protocol.Event, summary string) string {
	switch ev.Status {
	case "error":
		return prose.Join("Tool failed: "+toolName(ev), protocol.Theirs(summary), theirs(ev.ErrorMessage))
	case "timeout":
		return prose.Join("Tool timed out: "+toolName(ev), protocol.Theirs(summary))
	}
	if summary != "" {
		return protocol.Theirs(summary)
	}
	return "Finished " + toolName(ev) + "."
}

// errorDetail says what kind of error it is and what the producer
// suggests, as sentences.
func errorDetail(ev *protocol.Event) []string {
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
		parts = append(parts, "What you can do: "+protocol.Theirs(h))
	}
	return parts
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
	return prose.Join(text, theirs(p.Description))
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
			if label, ok := choiceLabel(ev, ev.DefaultResponse.String()); ok {
				return "use the answer " + protocol.Theirs(label)
			}
			return "use the answer " + protocol.Theirs(strconv.Quote(ev.DefaultResponse.String()))
		}
		return "go on without an answer"
	}
	if ev.DefaultDecision == protocol.DecisionAccept {
		return "accept"
	}
	return "reject"
}

// promptTopic is what a prompt asks, marked as the producer's words.
func promptTopic(ev *protocol.Event) string { return theirs(session.Asks(ev)) }

// replyWords says what reply body sent, as the user knows it: the
// decision and the reason given with it, or the answer, a choice named by
// its label.
func replyWords(ev *protocol.Event, body []byte) string {
	var m struct {
		Decision  string          `json:"decision"`
		Rationale string          `json:"decision_rationale"`
		Response  json.RawMessage `json:"response"`
	}
	if json.Unmarshal(body, &m) != nil {
		return "an answer"
	}
	words := protocol.Line(m.Decision)
	if len(m.Response) > 0 {
		var text string
		if json.Unmarshal(m.Response, &text) != nil {
			text = string(m.Response) // a number or yes/no sent as JSON
		}
		if label, ok := choiceLabel(ev, text); ok {
			words = protocol.Theirs(label)
		} else {
			words = protocol.Line(strconv.Quote(text))
		}
	}
	if words == "" {
		words = "an answer"
	}
	if why := protocol.Line(m.Rationale); why != "" {
		words += ", because " + protocol.Theirs(strings.TrimSuffix(why, "."))
	}
	return words
}

// choiceLabel is the label of ev's choice whose value is value, sanitized
// to one line; ok is false when no choice has that value.
func choiceLabel(ev *protocol.Event, value string) (label string, ok bool) {
	for _, c := range ev.Choices {
		if c.Value == value {
			if l := strings.TrimSuffix(c.Label.Line(), "."); l != "" {
				return l, true
			}
		}
	}
	return "", false
}

// choiceWords names an answer by its choice's label when it is one of
// ev's choices, else as it is, sanitized to one line.
func choiceWords(ev *protocol.Event, value string) string {
	if label, ok := choiceLabel(ev, value); ok {
		return label
	}
	return protocol.Line(value)
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

// theirs is a producer's text, sanitized and marked as theirs (see
// protocol.Theirs), so outputs can set it apart from our words.
func theirs(t protocol.Text) string {
	return protocol.Theirs(t.String())
}

// toolName is the tool's name in words, or says that it has none.
func toolName(ev *protocol.Event) string {
	if n := words(ev.Tool); n != "" {
		return n
	}
	return "a tool it did not name"
}

// stateWords says what the agent is doing now, for the states of the
// protocol; another state is said by its name.
func stateWords(state string) string {
	switch state {
	case "idle":
		return "Now idle."
	case "thinking":
		return "Now thinking."
	case "calling_tool":
		return "Now calling a tool."
	case "writing_output":
		return "Now writing its answer."
	case "awaiting_input":
		return "Now waiting for your input."
	case "deciding":
		return "Now deciding what to do next."
	case "handing_off":
		return "Now preparing to hand off."
	}
	return prose.Stop("Now in the state " + protocol.Theirs(words(state)))
}

func tidy(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
