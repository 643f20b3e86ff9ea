package outputs

import (
	"time"

	"testing"

	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/tui"
)

// Each TUI action is the typed command line mode reads for the same words;
// an agent's action without an agent is nothing, never "quit" for every
// agent; a label of two words stays one agent, as the command is built,
// not parsed.
func TestTUICommand(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		a    tui.Action
		want line.Command
	}{
		// A key on the prompt shown: bound to its words and when it was
		// first shown (subscriber.Answer).
		{tui.Action{Kind: tui.ActionAccept, Prompt: 2, Words: "d2", Shown: t0}, line.Command{Verb: line.VerbAccept, Prompt: 2, Word: "accept", Key: true, Words: "d2", Shown: t0}},
		{tui.Action{Kind: tui.ActionReject, Prompt: 3}, line.Command{Verb: line.VerbReject, Prompt: 3, Word: "reject", Key: true}},
		{tui.Action{Kind: tui.ActionAnswer, Prompt: 1, Text: "at seven"}, line.Parse("answer 1 at seven")},
		{tui.Action{Kind: tui.ActionStop}, line.Parse("stop")},
		{tui.Action{Kind: tui.ActionQuit}, line.Parse("quit")},
		{tui.Action{Kind: tui.ActionLine, Text: "pending"}, line.Parse("pending")},
		{tui.Action{Kind: tui.ActionMute, Agent: "mail"}, line.Parse("mute mail")},
		{tui.Action{Kind: tui.ActionUnmute, Agent: "mail"}, line.Parse("unmute mail")},
		{tui.Action{Kind: tui.ActionOnly, Agent: "web"}, line.Parse("only web")},
		{tui.Action{Kind: tui.ActionAll}, line.Parse("all")},
		{tui.Action{Kind: tui.ActionQuitAgent, Agent: "web"}, line.Parse("quit web")},
		{tui.Action{Kind: tui.ActionQuitAgent, Agent: "Demo Assistant"}, line.Command{Verb: line.VerbQuit, Word: "quit", Agent: "Demo Assistant"}},
		{tui.Action{Kind: tui.ActionQuitAgent}, line.Command{Verb: line.VerbEmpty}},
		// A task names its agent apart: its first word is task, not an agent.
		{tui.Action{Kind: tui.ActionTell, Agent: "Demo Assistant", Text: "code review"},
			line.Command{Verb: line.VerbTell, Word: "tell", Agent: "Demo Assistant", Arg: "code review", Key: true}},
		{tui.Action{Kind: tui.ActionTell, Text: "code review"}, line.Command{Verb: line.VerbTell, Word: "tell", Arg: "code review", Key: true}},
		{tui.Action{Kind: tui.ActionMute}, line.Command{Verb: line.VerbEmpty}},
		{tui.Action{}, line.Command{Verb: line.VerbEmpty}},
	} {
		if got := TUICommand(tt.a); got != tt.want {
			t.Errorf("%+v is %+v, want %+v", tt.a, got, tt.want)
		}
	}
}

// TUICommands carries every action, in order, and closes when the actions
// end.
func TestTUICommands(t *testing.T) {
	actions := make(chan tui.Action)
	cmds := TUICommands(actions)
	go func() {
		defer close(actions)
		actions <- tui.Action{Kind: tui.ActionMute, Agent: "mail"}
		actions <- tui.Action{Kind: tui.ActionQuit}
	}()
	var got []line.Verb
	for c := range cmds {
		got = append(got, c.Verb)
	}
	if len(got) != 2 || got[0] != line.VerbMute || got[1] != line.VerbQuit {
		t.Errorf("verbs %v, want mute then quit", got)
	}
}
