package console

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/internal/prose"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// Command carries out one typed line. It reports whether the user quit.
func (l *Listener) Command(ctx context.Context, s string) (quit bool) {
	return l.Do(ctx, command.Parse(s))
}

// Do carries out one command: a typed line as command.Parse reads it, or an
// action of the TUI or a braille key. All come here as one type, so they
// cannot drift. It reports whether the user quit.
func (l *Listener) Do(ctx context.Context, c command.Command) (quit bool) {
	now := l.cfg.Now()
	if l.secondStep(ctx, c) {
		return false
	}
	if l.agentCommand(ctx, c) {
		return false
	}
	switch c.Verb {
	case command.VerbAll, command.VerbOnly, command.VerbCancel: // one agent, and a question waits (or no acp: agent): its answer
		c = command.Command{Verb: command.VerbText, Arg: strings.TrimSpace(c.Word + " " + c.Agent)}
	case command.VerbTell: // no acp: agent runs
		c = command.Command{Verb: command.VerbText, Arg: c.Word + " " + c.Arg}
	}
	switch c.Verb {
	case command.VerbEmpty:
		l.emptyLine(ctx)
	case command.VerbQuit:
		return true // quit AGENT is agentCommand's

	case command.VerbSet:
		l.renegotiate(ctx, c)
	case command.VerbHelp:
		l.sayAll(helpLines(c.Arg))
	case command.VerbTerms:
		for _, a := range l.agents() {
			l.sayFor(a, "Terms: "+termsWords(a))
		}
	case command.VerbStop:
		l.silence()
	case command.VerbPending:
		l.listPending(now)
	case command.VerbDetails:
		if p := l.pick(ctx, c.Prompt, c.Word, false); p != nil {
			l.say(l.forAgent(p.a, announce.PromptDetails(p.Prompt, now)))
		}
	case command.VerbAccept, command.VerbReject, command.VerbAnswer, command.VerbText:
		l.answer(ctx, c)
	}
	return false
}

// emptyLine answers nothing: an Enter pressed by accident must never send
// an answer, to a confirmation or to a question. When exactly one prompt
// waits, it says so and how to answer it (a question's default is named:
// it applies when the time runs out). Otherwise a blank line says nothing.
func (l *Listener) emptyLine(ctx context.Context) {
	pending := l.pending()
	if len(pending) != 1 {
		return
	}
	p := pending[0]
	how := fmt.Sprintf("To answer prompt %d, type: accept %d, or: reject %d.", p.Number, p.Number, p.Number)
	if p.Event.Type == protocol.TypeAwaitingClarify {
		if err := p.a.c.Answer(ctx, p.Number, ""); err != nil { // refused: it says how, and the default
			how = err.Error()
		}
	}
	l.say("An empty line answers nothing; nothing was sent. " + how)
}

// agentPrompt is a prompt waiting for an answer, with the agent that asked.
type agentPrompt struct {
	*session.Prompt
	a *agent
}

// pending lists the prompts of every agent waiting for an answer, by
// number (numbers are unique across agents: subscriber.Group).
func (l *Listener) pending() []agentPrompt {
	mps := l.group.Pending()
	ps := make([]agentPrompt, len(mps))
	for i, p := range mps {
		ps[i] = agentPrompt{p.Prompt, p.Member.Value.(*agent)}
	}
	return ps
}

func prompts(ps []agentPrompt) []*session.Prompt {
	out := make([]*session.Prompt, len(ps))
	for i, p := range ps {
		out[i] = p.Prompt
	}
	return out
}

// whyNot says why prompt n cannot be answered: the agent that numbered it
// knows (settled, expired, its agent gone); "" when none did.
func (l *Listener) whyNot(ctx context.Context, n int) string {
	err := l.group.WhyNot(ctx, n)
	var ended *subscriber.EndedError
	switch {
	case errors.As(err, &ended):
		return err.Error()
	case err != nil:
		return l.forAgent(l.group.Owner(n).Value.(*agent), err.Error())
	}
	return ""
}

// forAgent starts a sentence about agent a with its name, in a run of
// several agents.
func (l *Listener) forAgent(a *agent, s string) string {
	if l.multi {
		return a.Tag() + ": " + s
	}
	return s
}

// pick finds the prompt numbered n waiting for an answer; when n is 0, the
// only prompt waiting. It tells the user why when there is none, and, for
// an answer, that nothing was sent.
func (l *Listener) pick(ctx context.Context, n int, word string, answering bool) *agentPrompt {
	pending := l.pending()
	if n > 0 {
		for i, p := range pending {
			if p.Number == n {
				return &pending[i]
			}
		}
		why := fmt.Sprintf("No prompt %d is waiting for an answer.", n)
		if w := l.whyNot(ctx, n); w != "" {
			why = w // already answered, expired, withdrawn, …
		}
		l.say(why + announce.PendingSummary(prompts(pending)))
		return nil
	}
	switch len(pending) {
	case 0:
		l.say("No prompt is waiting for an answer. Type help for commands.")
		return nil
	case 1:
		return &pending[0]
	}
	unsent := ""
	if answering {
		unsent = "; nothing was sent"
	}
	l.say(fmt.Sprintf("%d prompts are waiting; say which, for example: %s%s.%s",
		len(pending), example(pending, word), unsent, l.waiting(pending)))
	return nil
}

// example is a command that names one of the prompts waiting with a word
// that fits it: the word typed, for the first prompt of a kind it answers
// (accept for a confirmation, answer for a question), else the first
// prompt with the word that answers it.
func example(pending []agentPrompt, word string) string {
	kind := ""
	switch word {
	case "accept", "a", "reject", "r":
		kind = session.AsksConfirmation
	case "answer":
		kind = session.AsksQuestion
	}
	for _, p := range pending {
		if kind == "" || p.Kind() == kind {
			return fmt.Sprintf("%s %d", word, p.Number)
		}
	}
	p := pending[0]
	if p.Kind() == session.AsksQuestion {
		return fmt.Sprintf("answer %d", p.Number)
	}
	return fmt.Sprintf("accept %d", p.Number)
}

// fits is the kind of prompt answer c is for: accept and reject (a, r)
// answer a confirmation; answer and a line of text, a question; yes and
// no either (yes or no to a question), unless given always or a reason.
func fits(c command.Command) string {
	switch {
	case c.Verb == command.VerbAnswer || c.Verb == command.VerbText:
		return session.AsksQuestion
	case c.Always || c.Rationale != "":
		return session.AsksConfirmation
	}
	switch c.Word {
	case "yes", "y", "no", "n":
		return ""
	}
	return session.AsksConfirmation
}

// answer carries out an answer the user gave: typed (accept, reject, yes,
// no, answer, a line of text), or a key on the prompt shown. It is bound
// to the prompt it reaches (subscriber.Answer) — the one named by number,
// else the only one waiting, of the kind the answer is for — and sent
// through the group, which refuses it when that prompt is not the one
// shown or, for an answer naming no number, was shown moments ago. Nothing
// is sent otherwise, and the user hears which prompts wait.
func (l *Listener) answer(ctx context.Context, c command.Command) {
	word := c.Word
	if c.Verb == command.VerbText {
		word = "answer"
	}
	p := l.pick(ctx, c.Prompt, word, true)
	if p == nil {
		return
	}
	if kind := fits(c); kind != "" && kind != p.Kind() {
		l.say(fmt.Sprintf("Prompt %d from %s is a %s, not a %s; nothing was sent.%s",
			p.Number, l.agentName(*p), p.Kind(), kind, l.waiting(l.pending())))
		return
	}
	a := subscriber.Answer{To: subscriber.ShownOf(p.Prompt, c.Shown), Bare: c.Prompt == 0 || c.Key,
		Rationale: c.Rationale, Always: c.Always}
	if c.Words != "" {
		a.To.Words = c.Words // what the TUI drew
	}
	switch {
	case p.Kind() == session.AsksQuestion && (c.Verb == command.VerbAnswer || c.Verb == command.VerbText):
		a.Text = c.Arg
	case p.Kind() == session.AsksQuestion:
		a.Text = c.Word // yes or no to a question
	case c.Verb == command.VerbAccept:
		a.Decision = protocol.DecisionAccept
	default:
		a.Decision = protocol.DecisionReject
	}
	if a.Decision == protocol.DecisionAccept && announce.TwoSteps(p.Event) && !c.Sure {
		// One keystroke never sends what cannot be undone: the next line must be yes.
		l.held = &heldAccept{answer: a, number: p.Number, agent: p.a, always: c.Always}
		l.say(l.forAgent(p.a, announce.SecondStep(p.Prompt, fmt.Sprintf("Type yes to send; anything else sends nothing and prompt %d waits", p.Number))))
		return
	}
	l.send(ctx, a, c.Always, p.a)
}

// Held reports whether an accept that cannot be undone waits for its
// second step: the next command, which sends it only when it is yes.
func (l *Listener) Held() bool { return l.held != nil }

// heldAccept is an accept of a prompt that cannot be undone, waiting for
// its second step: the next line typed (or TUI action, or braille key).
type heldAccept struct {
	answer subscriber.Answer
	number int
	agent  *agent
	always bool
}

// secondStep takes the line after an accept that cannot be undone: yes
// sends it; anything else sends nothing, says so and, unless it was an
// empty line, is carried out as usual. It reports whether c was used up.
func (l *Listener) secondStep(ctx context.Context, c command.Command) bool {
	h := l.held
	if h == nil {
		return false
	}
	l.held = nil
	if c.Verb == command.VerbAccept && c.Word == "yes" && (c.Prompt == 0 || c.Prompt == h.number) && !c.Always && c.Rationale == "" {
		l.send(ctx, h.answer, h.always, h.agent)
		return true
	}
	l.say(fmt.Sprintf("Not sent: prompt %d still waits for your answer.", h.number))
	return c.Verb == command.VerbEmpty
}

// send sends an answer the user gave through the group, and says why when
// it was refused.
func (l *Listener) send(ctx context.Context, a subscriber.Answer, always bool, ag *agent) {
	err := l.group.Reply(ctx, a)
	l.keptAlways = l.keptAlways || (always && err == nil)
	if errors.Is(err, subscriber.ErrTooSoon) {
		// Said again, with what it asks: the user answers it by number.
		l.say(l.forAgent(ag, err.Error()) + l.waiting(l.pending()))
		return
	}
	l.answered(ag, err)
}

// maxAgentName bounds an agent's name where a line names the agent of a
// prompt: a long name never hides the prompt's number or what answers it.
const maxAgentName = 40

// agentName names the agent of p: the name its producer gives, cut to
// maxAgentName characters, after our own tag of it with several agents.
func (l *Listener) agentName(p agentPrompt) string {
	name := prose.Cut(announce.Agent(p.Event), maxAgentName)
	if l.multi && name != p.a.Tag() {
		return p.a.Tag() + ", agent " + name
	}
	return name
}

// waiting names the prompts waiting, each with its agent, number, kind and
// what answers it, to follow a sentence saying nothing was sent; when none
// waits, it says so.
func (l *Listener) waiting(pending []agentPrompt) string {
	if len(pending) == 0 {
		return " No prompt is waiting for an answer."
	}
	var b strings.Builder
	b.WriteString(" Waiting:")
	for _, p := range pending {
		how := fmt.Sprintf("type accept %d, or reject %d", p.Number, p.Number)
		if p.Kind() == session.AsksQuestion {
			how = fmt.Sprintf("type answer %d and your answer", p.Number)
		}
		fmt.Fprintf(&b, " prompt %d from %s, a %s: %s; %s.", p.Number, l.agentName(p), p.Kind(),
			protocol.Theirs(announce.PromptTopic(p.Prompt)), how)
	}
	return b.String()
}

// answered says why an answer was refused; a reply that could not be sent
// is told by the client's Reply update.
func (l *Listener) answered(a *agent, err error) {
	var se *subscriber.SendError
	if err != nil && !errors.As(err, &se) {
		l.say(l.forAgent(a, err.Error()))
	}
}

func (l *Listener) listPending(now time.Time) {
	pending := l.pending()
	if len(pending) == 0 {
		l.say("No prompt is waiting for an answer.")
		return
	}
	for _, p := range pending {
		l.say(l.forAgent(p.a, announce.PendingLine(p.Prompt, now)))
	}
}
