package tui

import (
	"github.com/aaep-term/aaep-term/command"
)

// This file gives the TUI's actions to a listener as the commands of the
// one vocabulary (package command) that line mode and braille keys give.

// agentCommands are the verbs of the actions about one agent, whose
// words are agentVerbs.
var agentCommands = map[ActionKind]command.Verb{
	ActionMute: command.VerbMute, ActionUnmute: command.VerbUnmute, ActionOnly: command.VerbOnly, ActionQuitAgent: command.VerbQuit,
}

// Command is the command the action a asks for: the value command.Parse
// gives the same command typed in line mode, built from the action,
// never read back from words. Only a line the user typed after the
// command key (ActionLine) is parsed, as the line it is. No action
// answers nothing.
func (a Action) Command() command.Command {
	switch a.Kind {
	case ActionAccept:
		return command.Command{Verb: command.VerbAccept, Prompt: a.Prompt, Word: "accept", Key: true, Words: a.Words, Shown: a.Shown, Sure: a.Sure}
	case ActionReject:
		return command.Command{Verb: command.VerbReject, Prompt: a.Prompt, Word: "reject", Key: true, Words: a.Words, Shown: a.Shown}
	case ActionAnswer:
		return command.Command{Verb: command.VerbAnswer, Prompt: a.Prompt, Arg: a.Text, Word: "answer"}
	case ActionSet:
		return command.Command{Verb: command.VerbSet, Word: a.Term, Arg: a.Text}
	case ActionStop:
		return command.Command{Verb: command.VerbStop, Word: "stop"}
	case ActionQuit:
		return command.Command{Verb: command.VerbQuit, Word: "quit"}
	case ActionLine:
		return command.Parse(a.Text)
	case ActionAll:
		return command.Command{Verb: command.VerbAll, Word: "all"}
	case ActionTell: // the whole text is the task, for Agent ("": the one agent)
		return command.Command{Verb: command.VerbTell, Word: "tell", Agent: a.Agent, Arg: a.Text, Key: true}
	}
	if w, ok := agentVerbs[a.Kind]; ok && a.Agent != "" {
		// An agent's action with no agent is nothing: above all,
		// quitting one agent must never read as quitting them all.
		return command.Command{Verb: agentCommands[a.Kind], Word: w, Agent: a.Agent}
	}
	return command.Command{Verb: command.VerbEmpty}
}

// Commands delivers the view's actions (Actions) as the commands they
// are (Action.Command), in order; it is closed when Actions is.
func (pr *Program) Commands() <-chan command.Command {
	out := make(chan command.Command)
	go func() {
		defer close(out)
		for a := range pr.Actions() {
			out <- a.Command()
		}
	}()
	return out
}
