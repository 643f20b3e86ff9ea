package outputs

import (
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/tui"
)

// This file carries the TUI's actions to a listener as the typed commands
// line mode reads. Neither tui nor line knows the other: they are outputs
// on one floor, and the command that runs both wires them here.

// agentVerbs are the commands of the TUI's actions about one agent, with
// the word line mode reads for each.
var agentVerbs = map[tui.ActionKind]struct {
	verb line.Verb
	word string
}{
	tui.ActionMute: {line.VerbMute, "mute"}, tui.ActionUnmute: {line.VerbUnmute, "unmute"},
	tui.ActionOnly: {line.VerbOnly, "only"}, tui.ActionQuitAgent: {line.VerbQuit, "quit"},
}

// TUICommand is the command the TUI's action a asks for: the typed value
// line.Parse gives the same command typed in line mode, built field by
// field, never read back from words. Only a line the user typed after the
// command key (tui.ActionLine) is parsed, as the line it is. No action
// answers nothing.
func TUICommand(a tui.Action) line.Command {
	switch a.Kind {
	case tui.ActionAccept:
		return line.Command{Verb: line.VerbAccept, Prompt: a.Prompt, Word: "accept", Key: true, Words: a.Words, Shown: a.Shown, Sure: a.Sure}
	case tui.ActionReject:
		return line.Command{Verb: line.VerbReject, Prompt: a.Prompt, Word: "reject", Key: true, Words: a.Words, Shown: a.Shown}
	case tui.ActionAnswer:
		return line.Command{Verb: line.VerbAnswer, Prompt: a.Prompt, Arg: a.Text, Word: "answer"}
	case tui.ActionSet:
		return line.Command{Verb: line.VerbSet, Word: a.Term, Arg: a.Text}
	case tui.ActionStop:
		return line.Command{Verb: line.VerbStop, Word: "stop"}
	case tui.ActionQuit:
		return line.Command{Verb: line.VerbQuit, Word: "quit"}
	case tui.ActionLine:
		return line.Parse(a.Text)
	case tui.ActionAll:
		return line.Command{Verb: line.VerbAll, Word: "all"}
	case tui.ActionTell: // the whole text is the task, for Agent ("": the one agent)
		return line.Command{Verb: line.VerbTell, Word: "tell", Agent: a.Agent, Arg: a.Text, Key: true}
	}
	if v, ok := agentVerbs[a.Kind]; ok && a.Agent != "" {
		// An agent's action with no agent is nothing: above all,
		// quitting one agent must never read as quitting them all.
		return line.Command{Verb: v.verb, Word: v.word, Agent: a.Agent}
	}
	return line.Command{Verb: line.VerbEmpty}
}

// TUICommands delivers actions (a tui.Program's Actions) as the typed
// commands they are (TUICommand), in order; it is closed when actions is.
func TUICommands(actions <-chan tui.Action) <-chan line.Command {
	out := make(chan line.Command)
	go func() {
		defer close(out)
		for a := range actions {
			out <- TUICommand(a)
		}
	}()
	return out
}
