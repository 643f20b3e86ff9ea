package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/protocol"
)

// maxAnswer is the longest free-text answer a clarification reply may carry.
const maxAnswer = 16384

// replyTime is the layout of a reply's timestamp: RFC 3339 in UTC with
// milliseconds.
const replyTime = "2006-01-02T15:04:05.000Z07:00"

// Reply is an answer ready to send: Body is the confirmation.reply or
// clarification.reply message for Prompt. Building one does not settle the
// prompt; call Sent once the transport has delivered Body.
type Reply struct {
	Prompt *Prompt
	Body   []byte
	// Decision is the confirmation's decision; empty for a clarification.
	Decision string
	// DecidedBy is the reply's decided_by.
	DecidedBy string
}

// Confirm builds the confirmation.reply giving decision (usually
// protocol.DecisionAccept or protocol.DecisionReject) to pending prompt n at
// time now. The prompt stays pending until Sent. Its error is a sentence
// to show the user as it is.
func (e *Engine) Confirm(n int, decision string, now time.Time) (Reply, error) {
	return e.ConfirmBy(n, decision, e.cfg.DecidedBy, now)
}

// ConfirmBy is Confirm with decidedBy written into decided_by instead of
// the configured one: a policy rule's "auto:policy:NAME", say.
func (e *Engine) ConfirmBy(n int, decision, decidedBy string, now time.Time) (Reply, error) {
	return e.ConfirmBecause(n, decision, decidedBy, "", now)
}

// maxRationale is the longest reason a confirmation reply may carry, in
// characters (the reply schema's limit).
const maxRationale = 4096

// ConfirmBecause is ConfirmBy with the user's reason for the decision,
// sent as decision_rationale when not empty.
func (e *Engine) ConfirmBecause(n int, decision, decidedBy, rationale string, now time.Time) (Reply, error) {
	rationale = strings.TrimSpace(rationale)
	if c := utf8.RuneCountInString(rationale); c > maxRationale {
		return Reply{}, fmt.Errorf("Your reason is %d characters long; a reply carries at most %d. Shorten it and answer again.", c, maxRationale)
	}
	p, err := e.answerable(n, protocol.TypeAwaitingConfirmation, now)
	if err != nil {
		return Reply{}, err
	}
	allowed := p.Event.AllowedReplies
	if len(allowed) == 0 {
		allowed = []string{protocol.DecisionAccept, protocol.DecisionReject}
	}
	if !slices.Contains(allowed, decision) {
		return Reply{}, fmt.Errorf("Prompt %d does not offer %s; its answers are: %s.",
			n, clean(decision), clean(strings.Join(allowed, ", ")))
	}
	r, err := e.reply(p, protocol.ConfirmationReply{
		Type:              protocol.TypeConfirmationReply,
		ReplyToken:        p.Event.ReplyToken,
		Decision:          decision,
		SubscriptionID:    e.subID,
		Timestamp:         now.UTC().Format(replyTime),
		DecidedBy:         decidedBy,
		DecisionRationale: rationale,
	})
	r.Decision, r.DecidedBy = decision, decidedBy
	return r, err
}

// Clarify builds the clarification.reply answering pending prompt n with
// what the user typed. The input is read as the first kind of answer the
// question accepts, tried in this order: a choice (its number or value), yes
// or no, a number, free text. The prompt stays pending until Sent. Its error
// is a sentence to show the user as it is.
func (e *Engine) Clarify(n int, input string, now time.Time) (Reply, error) {
	p, err := e.answerable(n, protocol.TypeAwaitingClarify, now)
	if err != nil {
		return Reply{}, err
	}
	resp, err := parseAnswer(p, input)
	if err != nil {
		return Reply{}, err
	}
	r, err := e.reply(p, protocol.ClarificationReply{
		Type:           protocol.TypeClarificationReply,
		ReplyToken:     p.Event.ReplyToken,
		Response:       resp,
		SubscriptionID: e.subID,
		Timestamp:      now.UTC().Format(replyTime),
		DecidedBy:      e.cfg.DecidedBy,
	})
	r.DecidedBy = e.cfg.DecidedBy
	return r, err
}

// Sent records that the transport delivered r: its prompt is answered, and a
// KindReplySent delivery tells the user.
func (e *Engine) Sent(r Reply, now time.Time) {
	p := r.Prompt
	if p == nil {
		return
	}
	if i := e.pendingIndex(p.Number); i >= 0 && e.pending[i].p == p {
		e.removePending(i)
		p.State = PromptAnswered
		p.Decision, p.DecidedBy = r.Decision, r.DecidedBy
		e.settle(p)
		if p.Event.ReplyToken != "" {
			// By token alone: one back channel takes replies for all its agents.
			e.answered.add(e.hash.sum("", p.Event.ReplyToken))
		}
		e.schedulePrompts()
	}
	e.out.Deliver(Delivery{Kind: KindReplySent, At: now, Event: p.Event, Prompt: p, Reply: r.Body})
}

func (e *Engine) reply(p *Prompt, msg any) (Reply, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return Reply{}, fmt.Errorf("Could not write the answer to prompt %d: %v.", p.Number, err)
	}
	return Reply{Prompt: p, Body: body}, nil
}

// WhyNot says why prompt n cannot be answered at now: already answered,
// expired, withdrawn, settled elsewhere, or unknown. It is nil when it can.
func (e *Engine) WhyNot(n int, now time.Time) error {
	p := e.prompt(n)
	if p == nil {
		return fmt.Errorf("No prompt %d is waiting for an answer.", n)
	}
	_, err := e.answerable(n, p.Event.Type, now)
	return err
}

// answerable returns prompt n when it is pending, of type typ and still in
// time; otherwise an error saying why it cannot be answered.
func (e *Engine) answerable(n int, typ string, now time.Time) (*Prompt, error) {
	p := e.prompt(n)
	if p == nil {
		return nil, fmt.Errorf("No prompt %d is waiting for an answer.", n)
	}
	state := p.State
	if state == PromptPending && !p.Deadline.IsZero() && !now.Before(p.Deadline) {
		state = PromptExpired // Tick has not caught up yet
	}
	switch state {
	case PromptAnswered:
		return nil, fmt.Errorf("Prompt %d is already answered.", n)
	case PromptExpired:
		return nil, expired(p)
	case PromptCancelled:
		return nil, fmt.Errorf("Prompt %d was withdrawn by the agent; it can no longer be answered.", n)
	case PromptStale:
		return nil, fmt.Errorf("Prompt %d is already settled; it can no longer be answered.", n)
	case PromptResolved:
		return nil, fmt.Errorf("Prompt %d was settled elsewhere; it can no longer be answered.", n)
	case PromptNotOffered:
		return nil, errors.New(p.why)
	case PromptLeft:
		return nil, fmt.Errorf("Prompt %d was left unanswered when the listener stopped; the agent is still waiting, but no answer can be sent from here.", n)
	}
	if p.Event.ReplyToken != "" && e.answered.has(e.hash.sum("", p.Event.ReplyToken)) {
		return nil, fmt.Errorf("Prompt %d reuses the reply token of a prompt already answered; the agent would ignore a second answer, so none is sent.", n)
	}
	if p.Event.Type == typ {
		return p, nil
	}
	if p.Event.Type == protocol.TypeAwaitingClarify {
		return nil, fmt.Errorf("Prompt %d asks a question; answer it with: answer %d TEXT.", n, n)
	}
	return nil, fmt.Errorf("Prompt %d asks for a decision; answer it with: accept %d, or reject %d.", n, n, n)
}

// expired says that prompt p ran out of time, and what happened instead.
func expired(p *Prompt) error {
	ev := p.Event
	switch {
	case ev.Type == protocol.TypeAwaitingClarify && ev.HasDefaultResponse:
		return fmt.Errorf("Prompt %d has expired; the default answer (%s) applied.", p.Number, ev.DefaultResponse)
	case ev.Type == protocol.TypeAwaitingClarify:
		return fmt.Errorf("Prompt %d has expired without an answer.", p.Number)
	case ev.DefaultDecision != "":
		return fmt.Errorf("Prompt %d has expired; the default decision (%s) applied.", p.Number, clean(ev.DefaultDecision))
	}
	return fmt.Errorf("Prompt %d has expired; the agent's default decision applied.", p.Number)
}

// answerKinds says which kinds of answer a clarification accepts.
type answerKinds struct {
	choice, yesNo, number, text bool
}

func kindsOf(ev *protocol.Event) answerKinds {
	var k answerKinds
	for _, kind := range ev.AcceptedResponseKinds {
		switch kind {
		case "multiple_choice":
			k.choice = len(ev.Choices) > 0
		case "yes_no":
			k.yesNo = true
		case "numeric":
			k.number = true
		case "freetext":
			k.text = true
		}
	}
	if k == (answerKinds{}) {
		k.text = true // none given (or none we know): any text will do
	}
	return k
}

// parseAnswer reads input as an answer to the clarification p: a string, a
// bool or a float64.
func parseAnswer(p *Prompt, input string) (any, error) {
	ev := p.Event
	k := kindsOf(ev)
	in := strings.TrimSpace(input)
	if in == "" {
		if ev.HasDefaultResponse {
			return nil, fmt.Errorf("Type an answer for prompt %d; if you give none, the agent uses its default: %s.",
				p.Number, ev.DefaultResponse)
		}
		return nil, fmt.Errorf("Type an answer for prompt %d, for example: answer %d TEXT.", p.Number, p.Number)
	}
	if k.choice {
		if v, ok := choice(ev.Choices, in); ok {
			return v, nil
		}
	}
	if k.yesNo {
		if b, ok := yesNo(in); ok {
			return b, nil
		}
	}
	if k.number {
		if f, err := strconv.ParseFloat(in, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, nil
		}
	}
	if k.text {
		if len(in) > maxAnswer {
			return nil, fmt.Errorf("Your answer is too long: %d bytes; the limit is %d.", len(in), maxAnswer)
		}
		return in, nil
	}
	return nil, notAccepted(p.Number, k, len(ev.Choices))
}

// choice finds the choice the user meant: its number (1 based), its value or
// its label, letter case aside.
func choice(choices []protocol.Choice, in string) (string, bool) {
	if i, err := strconv.Atoi(in); err == nil && i >= 1 && i <= len(choices) && choices[i-1].Value != "" {
		return choices[i-1].Value, true
	}
	for _, c := range choices {
		if c.Value != "" && strings.EqualFold(in, c.Value) {
			return c.Value, true
		}
	}
	for _, c := range choices {
		if c.Value != "" && c.Label != "" && strings.EqualFold(in, strings.TrimSpace(c.Label.String())) {
			return c.Value, true
		}
	}
	return "", false
}

// yesNo reads a yes or no answer. The accept and reject commands count too,
// since the user may use them on a yes or no question.
func yesNo(in string) (bool, bool) {
	switch strings.ToLower(in) {
	case "yes", "y", "true", "accept", "a":
		return true, true
	case "no", "n", "false", "reject", "r":
		return false, true
	}
	return false, false
}

// notAccepted tells the user which answers prompt n takes.
func notAccepted(n int, k answerKinds, choices int) error {
	if k.choice && !k.yesNo && !k.number {
		return fmt.Errorf("That is not one of the choices: type a number from 1 to %d or the value.", choices)
	}
	var alts []string
	if k.choice {
		alts = append(alts, fmt.Sprintf("a choice's number from 1 to %d or its value", choices))
	}
	if k.yesNo {
		alts = append(alts, "yes or no")
	}
	if k.number {
		alts = append(alts, "a number")
	}
	return errors.New("That answer does not fit prompt " + strconv.Itoa(n) + ": type " + orList(alts) + ".")
}

// orList joins alternatives: "a", "a, or b", "a, b, or c". (The
// alternatives may themselves contain "or".)
func orList(alts []string) string {
	switch len(alts) {
	case 0:
		return "an answer"
	case 1:
		return alts[0]
	case 2:
		return alts[0] + ", or " + alts[1]
	}
	return strings.Join(alts[:len(alts)-1], ", ") + ", or " + alts[len(alts)-1]
}
