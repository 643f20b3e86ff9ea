package console

// help.go: typed help, short lines a braille display shows forty cells at
// a time: one line per command, and help COMMAND for more about one.

import (
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

// helpTopic is one command of typed help: the words that name it, its one
// line in the list, and the lines help WORD adds.
type helpTopic struct {
	words []string
	line  string
	more  []string
}

// helpTopics are the typed commands, in the order help lists them. Every
// line stays under helpWidth characters.
var helpTopics = []helpTopic{
	{[]string{"accept", "a", "yes", "y"}, "accept N: accept confirmation N; type yes if asked again.", []string{
		"accept N, a N or yes N: accept confirmation N.",
		"High risk that cannot be undone takes a second step:",
		"the action is read back; type yes to send the accept.",
		"Anything else sends nothing, and the prompt waits.",
		"yes N also answers question N with yes.",
		"accept N because REASON: send your reason with it.",
		"accept always N: accept N and later ones about the same tool.",
		"Always keeps to that agent and session.",
		"A riskier one is asked again, as is any irreversible high risk.",
		"N may be left out when one prompt waits, said 3 seconds ago.",
	}},
	{[]string{"reject", "r", "no", "n"}, "reject N: reject confirmation N.", []string{
		"reject N, r N or no N: reject confirmation N.",
		"no N also answers question N with no.",
		"reject N because REASON: send your reason with it.",
		"reject always N: reject N and later ones about the same tool.",
	}},
	{[]string{"answer"}, "answer N TEXT: answer question N.", []string{
		"answer N TEXT: answer question N.",
		"The answer is a choice number, a choice, yes, no, or any text.",
		"When only a question waits, any line you type answers it.",
	}},
	{[]string{"pending", "list"}, "pending: list the prompts waiting.", []string{
		"pending or list: list the prompts waiting, with time left.",
	}},
	{[]string{"details", "?"}, "details N: read prompt N in full.", []string{
		"details N or ? N: read prompt N in full.",
		"It says the consequence, risk, choices, default and time left.",
	}},
	{[]string{"stop", "silence", "hush"}, "stop: stop speech now.", []string{
		"stop or silence: stop speech and drop what waits to be said.",
		"Prompts and errors are still said.",
	}},
	{[]string{"set"}, "set NAME VALUE: ask for new terms.", []string{
		"set rate N: at most N events per second.",
		"set verbosity V: terse, normal or verbose texts.",
		"set lang yo,en: these languages, in order of preference.",
		"set include TYPES: only these event types, such as tool.*.",
		"set exclude TYPES: never these event types.",
		"Add for AGENT to ask one agent only.",
	}},
	{[]string{"terms"}, "terms: say the terms each producer grants.", []string{
		"terms: what each producer grants, in words.",
		"It says where that is less than you asked for.",
		"At the start, only what changes what you hear is said.",
		"--verbosity detailed says every term as it comes.",
	}},
	{[]string{"agents"}, "agents: list the agents.", []string{
		"agents: each agent, its state, prompts waiting and terms.",
	}},
	{[]string{"mute", "unmute", "only", "all"}, "mute AGENT: hear only its critical events.", []string{
		"mute AGENT: say only its critical events and prompts.",
		"unmute AGENT: say all of it again.",
		"only AGENT: hear it in full, and only others' critical events.",
		"all: hear every agent in full again.",
	}},
	{[]string{"tell", "cancel"}, "tell TEXT: give an ACP agent a task.", []string{
		"tell TEXT: give an agent started as acp:COMMAND a task,",
		"or one served by aaep-bridge.",
		"tell AGENT TEXT: the same, with several agents.",
		"cancel, or cancel AGENT: cancel the task it is doing.",
	}},
	{[]string{"help", "h"}, "help COMMAND: more about one command.", nil},
	{[]string{"quit", "q", "exit"}, "quit: close every subscription and exit.", []string{
		"quit: close every subscription and exit.",
		"quit AGENT: close that agent's subscription only.",
	}},
}

// helpWidth is the longest a help line may be, so that with its time it
// fits 80 columns, two rows of a forty-cell braille display.
const helpWidth = 70

// helpLines is what typed help says: the list of commands, or more about
// the command topic names ("" for the list).
func helpLines(topic string) []string {
	topic = strings.ToLower(strings.TrimSpace(topic))
	if topic != "" {
		word, _, _ := strings.Cut(topic, " ")
		for _, t := range helpTopics {
			for _, w := range t.words {
				if w == word {
					if len(t.more) == 0 {
						return []string{t.line}
					}
					return t.more
				}
			}
		}
		return []string{"No command is called " + quoteWord(word) + "; type help for the list."}
	}
	lines := []string{"Commands; type help COMMAND for more:"}
	for _, t := range helpTopics {
		lines = append(lines, t.line)
	}
	return lines
}

// quoteWord is a word the user typed, sanitized, in quotes, cut short.
func quoteWord(w string) string {
	w = protocol.Line(w)
	if r := []rune(w); len(r) > 20 {
		w = string(r[:20]) + "…"
	}
	return `"` + w + `"`
}
