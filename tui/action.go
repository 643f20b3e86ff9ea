package tui

import (
	"strconv"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
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
	// Agent is the agent ActionMute, ActionUnmute, ActionOnly,
	// ActionQuitAgent and ActionTell are for: its Label exactly as the listener gave it in
	// SetAgents, so the listener finds it without reading words back.
	Agent string
	// Words and Shown are what ActionAccept and ActionReject answer: the
	// digest of the prompt on screen (Prompt.Digest) and when it first
	// headed the screen. The listener answers nothing else, and nothing
	// shown moments ago.
	Words string
	Shown time.Time
	// Sure marks an ActionAccept whose second step the view asked and the
	// user took (Prompt.SecondStep): the listener does not ask it again.
	Sure bool
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
	ActionMute      // mute Agent: only its critical events and prompts come through
	ActionUnmute    // unmute Agent
	ActionOnly      // only Agent: mute every other agent
	ActionAll       // every agent heard again: undo only and mute
	ActionQuitAgent // close Agent's subscription only; the others go on
	// ActionTell gives an agent started as acp:COMMAND the task Text:
	// Agent, or the one agent that takes tasks when Agent is "".
	ActionTell
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
	case ActionAll:
		return "all"
	case ActionTell:
		if a.Agent == "" {
			return "tell " + a.Text
		}
		return "tell " + protocol.Name(a.Agent) + " " + a.Text
	}
	if w := agentVerbs[a.Kind]; w != "" {
		// The label is shown: sanitized, as the list names the agent.
		return w + " " + protocol.Name(a.Agent)
	}
	return "nothing"
}

// agentVerbs are the line-mode words of the actions about one agent.
var agentVerbs = map[ActionKind]string{
	ActionMute: "mute", ActionUnmute: "unmute", ActionOnly: "only", ActionQuitAgent: "quit",
}
