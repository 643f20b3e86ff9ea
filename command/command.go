// Package command is the one vocabulary of what the user asks a listener
// for: a line typed in line mode, a TUI key, a braille key, a control of a
// capture played all become the same Command, which the console (or the
// replay engine) carries out.
package command

import (
	"strconv"
	"strings"
	"time"
)

// Verb is what a typed command asks for.
type Verb int

// Verbs of line mode.
const (
	VerbText    Verb = iota // a line that is no command: an answer to a question
	VerbAccept              // accept, a, yes, y
	VerbReject              // reject, r, no, n
	VerbAnswer              // answer [N] TEXT
	VerbPending             // pending, list
	VerbDetails             // details [N], ?
	VerbHelp                // help, h
	VerbQuit                // quit, q, exit
	VerbEmpty               // an empty line
	VerbSet                 // set NAME VALUE: change a term of the subscription
	VerbStop                // stop, silence, hush: stop speaking what is not critical
	VerbAgents              // agents: list the agents listened to
	VerbMute                // mute AGENT: only its critical events and prompts
	VerbUnmute              // unmute AGENT
	VerbOnly                // only AGENT: mute every other agent
	VerbAll                 // all: undo only and mute, every agent heard again
	VerbTell                // tell [AGENT] TEXT: give an ACP agent a task
	VerbCancel              // cancel [AGENT]: cancel an ACP agent's task
	VerbTerms               // terms: the terms each agent's producer grants

	// Verbs of a capture played (ParsePlay); VerbHelp and VerbQuit too.
	VerbPause    // stop before the next message
	VerbResume   // go on at the current speed
	VerbStep     // play the next message, then stay paused
	VerbSeek     // go to a time: absolute, or relative with + or -
	VerbNext     // jump to the next critical event or mark
	VerbPrevious // jump back to the previous one
	VerbMark     // set a mark here
	VerbSpeed    // change (or say) the speed
	VerbWhere    // say where playing is
	VerbToggle   // pause when playing, resume when paused
	VerbFaster   // double the speed
	VerbSlower   // halve the speed
)

func (v Verb) String() string {
	return [...]string{"text", "accept", "reject", "answer", "pending", "details", "help", "quit", "empty", "set", "stop",
		"agents", "mute", "unmute", "only", "all", "tell", "cancel", "terms",
		"pause", "resume", "step", "seek", "next", "previous", "mark", "speed", "where", "toggle", "faster", "slower"}[v]
}

// Command is one typed line.
type Command struct {
	Verb   Verb
	Prompt int    // prompt number the user named; 0 when none
	Arg    string // VerbAnswer: the answer; VerbText: the whole line
	Word   string // the command word as typed, lower case ("yes", "a", …)
	// Always is set for "accept always N" and "reject always N": answer
	// this prompt, and every later one about the same tool in its session.
	Always bool
	// Rationale is the reason given with "accept N because TEXT" or
	// "reject N because TEXT", sent as the reply's decision_rationale.
	Rationale string
	// Agent is the agent a command is for, as typed (a label or name):
	// "mute AGENT", "unmute AGENT", "only AGENT", "quit AGENT" and
	// "set NAME VALUE for AGENT" and "cancel AGENT". Empty means every
	// agent (quit: all). "tell" leaves its first word in Arg: only the
	// listener knows whether it names an agent; a tell given with a key
	// (the TUI's task input) names its agent here, and Arg is all task.
	Agent string

	// Key marks an answer given with a key on the prompt on screen (a TUI
	// key, a braille routing key), not a number typed: like an answer
	// without a number it applies only to the prompt shown, once the user
	// had time to take it in. Words is the digest of the prompt shown
	// (session.Prompt.Digest) and Shown when it was first shown; "" and
	// zero when not known. On a tell, Key marks the TUI's task input.
	Key   bool
	Words string
	Shown time.Time
	// Sure marks an accept whose second step was already taken where it
	// was given (the TUI's and the braille display's own question): an
	// accept that cannot be undone is then not asked again.
	Sure bool

	// Of a capture played (ParsePlay): At is VerbSeek's target, or its
	// offset when Relative; Critical, for VerbNext and VerbPrevious, a
	// critical event (else a mark); Speed is VerbSpeed's (negative: only
	// say it).
	At       time.Duration
	Relative bool
	Critical bool
	Speed    float64
}

// Parse reads one typed line. It never fails: what is not a command is text.
func Parse(s string) Command {
	s = strings.TrimSpace(s)
	if s == "" {
		return Command{Verb: VerbEmpty}
	}
	word, rest, _ := strings.Cut(s, " ")
	word = strings.ToLower(word)
	rest = strings.TrimSpace(rest)
	num, after := leadingNumber(rest)

	if c, ok := always(word, rest); ok {
		return c
	}
	switch word {
	case "accept", "a", "yes", "y":
		if why, ok := because(after); ok {
			return Command{Verb: VerbAccept, Prompt: num, Word: word, Arg: s, Rationale: why}
		}
	case "reject", "r", "no", "n":
		if why, ok := because(after); ok {
			return Command{Verb: VerbReject, Prompt: num, Word: word, Arg: s, Rationale: why}
		}
	case "answer":
		if num > 0 {
			return Command{Verb: VerbAnswer, Prompt: num, Arg: after, Word: word}
		}
		return Command{Verb: VerbAnswer, Arg: rest, Word: word}
	case "pending", "list":
		if rest == "" {
			return Command{Verb: VerbPending, Word: word}
		}
	case "details", "?":
		if after == "" {
			return Command{Verb: VerbDetails, Prompt: num, Word: word}
		}
	case "help", "h":
		// help COMMAND: Arg is the command asked about. A line such as
		// "help me" is no command: it may answer a question.
		if topic, _, _ := strings.Cut(rest, " "); rest == "" || commandWords[strings.ToLower(topic)] {
			return Command{Verb: VerbHelp, Word: word, Arg: rest}
		}
	case "set":
		name, value, _ := strings.Cut(rest, " ")
		value, agent := forAgent(strings.TrimSpace(value))
		return Command{Verb: VerbSet, Word: strings.ToLower(name), Arg: value, Agent: agent}
	case "quit", "q", "exit":
		if !strings.Contains(rest, " ") {
			return Command{Verb: VerbQuit, Word: word, Agent: rest}
		}
	case "agents":
		if rest == "" {
			return Command{Verb: VerbAgents, Word: word}
		}
	case "terms":
		if rest == "" {
			return Command{Verb: VerbTerms, Word: word}
		}
	case "all":
		if rest == "" {
			return Command{Verb: VerbAll, Word: word}
		}
	case "mute", "unmute", "only":
		if rest != "" && !strings.Contains(rest, " ") {
			v := map[string]Verb{"mute": VerbMute, "unmute": VerbUnmute, "only": VerbOnly}[word]
			return Command{Verb: v, Word: word, Agent: rest}
		}
	case "stop", "silence", "hush":
		if rest == "" {
			return Command{Verb: VerbStop, Word: word}
		}
	case "tell":
		if rest != "" {
			return Command{Verb: VerbTell, Word: word, Arg: rest}
		}
	case "cancel":
		if !strings.Contains(rest, " ") {
			return Command{Verb: VerbCancel, Word: word, Agent: rest}
		}
	}
	return Command{Verb: VerbText, Arg: s}
}

// commandWords are the words that start a command, as Parse reads them.
var commandWords = map[string]bool{
	"accept": true, "a": true, "yes": true, "y": true, "reject": true, "r": true, "no": true, "n": true,
	"answer": true, "pending": true, "list": true, "details": true, "?": true, "help": true, "h": true,
	"set": true, "quit": true, "q": true, "exit": true, "agents": true, "all": true, "mute": true,
	"unmute": true, "only": true, "stop": true, "silence": true, "hush": true, "tell": true, "cancel": true,
	"terms": true,
}

// forAgent splits "VALUE for AGENT" into VALUE and AGENT (one word); a
// value without that ending is returned whole, for every agent.
func forAgent(s string) (value, agent string) {
	i := strings.LastIndex(strings.ToLower(s), " for ")
	if i < 0 {
		return s, ""
	}
	agent = strings.TrimSpace(s[i+len(" for "):])
	if agent == "" || strings.Contains(agent, " ") {
		return s, ""
	}
	return strings.TrimSpace(s[:i]), agent
}

// because reads what may follow a decision: nothing, or "because" and a
// reason (returned). Anything else is not a decision.
func because(after string) (string, bool) {
	if after == "" {
		return "", true
	}
	kw, why, _ := strings.Cut(after, " ")
	why = strings.TrimSpace(why)
	if !strings.EqualFold(kw, "because") || why == "" {
		return "", false
	}
	return why, true
}

// always reads "accept always N" (N optional) and its reject forms.
func always(word, rest string) (Command, bool) {
	var v Verb
	switch word {
	case "accept", "a", "yes", "y":
		v = VerbAccept
	case "reject", "r", "no", "n":
		v = VerbReject
	default:
		return Command{}, false
	}
	kw, tail, _ := strings.Cut(rest, " ")
	num, after := leadingNumber(strings.TrimSpace(tail))
	if !strings.EqualFold(kw, "always") || after != "" {
		return Command{}, false
	}
	return Command{Verb: v, Prompt: num, Word: word, Always: true}, true
}

// leadingNumber splits "2 rest" into 2 and "rest"; without a leading number
// it returns 0 and s.
func leadingNumber(s string) (int, string) {
	first, rest, _ := strings.Cut(s, " ")
	n, err := strconv.Atoi(first)
	if err != nil || n <= 0 {
		return 0, s
	}
	return n, strings.TrimSpace(rest)
}

// Usage lists the typed commands for a command's --help, one a line,
// as Parse reads them; it ends with a newline.
const Usage = `Typed commands (one per line; N may be left out when one prompt waits,
from any agent, and was said at least 3 seconds ago with nothing changed since):
  accept N, a N, yes N        accept confirmation N (yes N: or answer
                              question N yes)
  reject N, r N, no N         reject confirmation N (no N: or answer
                              question N no)
  accept N because REASON     the same, sending your reason to the agent
  reject N because REASON     (decision_rationale)
  accept always N             accept N and, in its session of its agent,
  reject always N             every later confirmation about the same tool;
                              one riskier than N (a higher risk, or it
                              cannot be undone when N could) is asked
                              again, and accept always never applies to an
                              irreversible high-risk action
  answer N TEXT               answer question N (a choice number, a choice,
                              yes or no, a number, or free text)
  pending                     list prompts waiting for you
  details N, ? N              read prompt N in full
  stop, silence               stop speech and drop what waits to be said
                              (prompts and errors are still said)
  set rate N                  ask the producer for new terms while
                              listening: at most N events per second,
  set verbosity V             terse, normal or verbose texts,
  set lang yo,en              these languages, in order of preference,
  set include|exclude TYPES   only, or never, these types (tool.*)
  set NAME VALUE for AGENT    the same for one agent only (without for AGENT,
                              every agent is asked)
  terms                       the terms each producer grants, in words
  help, help COMMAND          list commands, or more about one
  quit                        close the subscription and exit (every agent's)

With several agents (AGENT is a label, the name lines give the agent, or
its endpoint; prompt numbers are unique across agents, so an answer goes to
the agent that asked):
  agents                      each agent: endpoint, state, terms, prompts
                              waiting, events so far
  mute AGENT, unmute AGENT    say only its critical events and prompts, or
                              all of it again
  only AGENT                  hear one agent in full; the others' critical
                              events and prompts are still said
  all                         hear every agent in full again
  quit AGENT                  close that agent's subscription only

With agents started as acp:COMMAND (docs/agents.md):
  tell TEXT, tell AGENT TEXT  give the agent a task
  cancel, cancel AGENT        cancel the task it is doing
With one agent, "all" or "only …" typed while a question waits is its answer.
`
