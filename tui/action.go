package tui

import (
	"strconv"
	"strings"
)

// Action is what the user asked for in the view, typed. The listener
// carries it out as it is: nothing reads it back from words, so no text
// shown in the view (a prompt's topic, a question's choices, an answer
// typed) can turn into a different action.
type Action struct {
	Kind   ActionKind
	Prompt int    // ActionAccept, ActionReject, ActionAnswer: the prompt's number
	Text   string // ActionAnswer: the answer; ActionSet: the new value; ActionLine: the line
	// Term is the term ActionSet changes: rate, verbosity, lang, include or
	// exclude (as line mode's set command names them).
	Term string
}

// ActionKind is what an Action asks for.
type ActionKind int

// The kinds of Action. The zero kind is no action.
const (
	ActionAccept ActionKind = iota + 1 // accept confirmation Prompt
	ActionReject                       // reject confirmation Prompt
	ActionAnswer                       // answer question Prompt with Text
	ActionSet                          // ask the producer to change Term to Text
	ActionStop                         // stop speaking what is not critical
	ActionQuit                         // close the subscription and end
	// ActionLine is a command line the user typed after the command key,
	// or a Binding's command: the listener reads Text as a line typed in
	// line mode, as the user meant it.
	ActionLine
)

// String says the action in the words of line mode ("accept 2",
// "answer 3 blue"), for the view's messages. It is for reading only: the
// listener takes the Action itself.
func (a Action) String() string {
	n := strconv.Itoa(a.Prompt)
	switch a.Kind {
	case ActionAccept:
		return "accept " + n
	case ActionReject:
		return "reject " + n
	case ActionAnswer:
		return "answer " + n + " " + a.Text
	case ActionSet:
		return strings.TrimSpace("set " + a.Term + " " + a.Text)
	case ActionStop:
		return "stop"
	case ActionQuit:
		return "quit"
	case ActionLine:
		return a.Text
	}
	return "nothing"
}
