package tui

import (
	"time"

	"testing"

	"github.com/aaep-term/aaep-term/command"
)

// Each TUI action is the typed command line mode reads for the same words;
// an agent's action without an agent is nothing, never "quit" for every
// agent; a label of two words stays one agent, as the command is built,
// not parsed.
func TestTUICommand(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		a    Action
		want command.Command
	}{
		// A key on the prompt shown: bound to its words and when it was
		// first shown (subscriber.Answer).
		{Action{Kind: ActionAccept, Prompt: 2, Words: "d2", Shown: t0}, command.Command{Verb: command.VerbAccept, Prompt: 2, Word: "accept", Key: true, Words: "d2", Shown: t0}},
		{Action{Kind: ActionReject, Prompt: 3}, command.Command{Verb: command.VerbReject, Prompt: 3, Word: "reject", Key: true}},
		{Action{Kind: ActionAnswer, Prompt: 1, Text: "at seven"}, command.Parse("answer 1 at seven")},
		{Action{Kind: ActionStop}, command.Parse("stop")},
		{Action{Kind: ActionQuit}, command.Parse("quit")},
		{Action{Kind: ActionLine, Text: "pending"}, command.Parse("pending")},
		{Action{Kind: ActionMute, Agent: "mail"}, command.Parse("mute mail")},
		{Action{Kind: ActionUnmute, Agent: "mail"}, command.Parse("unmute mail")},
		{Action{Kind: ActionOnly, Agent: "web"}, command.Parse("only web")},
		{Action{Kind: ActionAll}, command.Parse("all")},
		{Action{Kind: ActionQuitAgent, Agent: "web"}, command.Parse("quit web")},
		{Action{Kind: ActionQuitAgent, Agent: "Demo Assistant"}, command.Command{Verb: command.VerbQuit, Word: "quit", Agent: "Demo Assistant"}},
		// A task names its agent apart: its first word is task, not an agent.
		{Action{Kind: ActionTell, Agent: "Demo Assistant", Text: "code review"},
			command.Command{Verb: command.VerbTell, Word: "tell", Agent: "Demo Assistant", Arg: "code review", Key: true}},
		{Action{Kind: ActionTell, Text: "code review"}, command.Command{Verb: command.VerbTell, Word: "tell", Arg: "code review", Key: true}},
		{Action{Kind: ActionQuitAgent}, command.Command{Verb: command.VerbEmpty}},
		{Action{Kind: ActionMute}, command.Command{Verb: command.VerbEmpty}},
		{Action{}, command.Command{Verb: command.VerbEmpty}},
	} {
		if got := tt.a.Command(); got != tt.want {
			t.Errorf("%+v is %+v, want %+v", tt.a, got, tt.want)
		}
	}
}

// Commands carries every action, in order, and closes when the actions
// end.
func TestProgramCommands(t *testing.T) {
	actions := make(chan Action)
	cmds := (&Program{actions: actions}).Commands()
	go func() {
		defer close(actions)
		actions <- Action{Kind: ActionMute, Agent: "mail"}
		actions <- Action{Kind: ActionQuit}
	}()
	var got []command.Verb
	for c := range cmds {
		got = append(got, c.Verb)
	}
	if len(got) != 2 || got[0] != command.VerbMute || got[1] != command.VerbQuit {
		t.Errorf("verbs %v, want mute then quit", got)
	}
}
