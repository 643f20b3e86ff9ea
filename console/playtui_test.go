package console

import (
	"testing"

	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/tui"
)

// Of the view's actions only quit, or a line the user typed or bound,
// ends playing: the silence key (s) used to send "stop", which quits.
func TestPlayLineQuitsOnlyOnQuit(t *testing.T) {
	for _, a := range []tui.Action{
		{Kind: tui.ActionStop}, {Kind: tui.ActionAccept, Prompt: 1}, {Kind: tui.ActionReject, Prompt: 1},
		{Kind: tui.ActionAnswer, Prompt: 2, Text: "quit"}, {Kind: tui.ActionSet, Term: "rate", Text: "5"}, {},
	} {
		if c, err := command.ParsePlay(PlayLine(a)); err == nil && c.Verb == command.VerbQuit {
			t.Errorf("%+v quits playing (%q)", a, PlayLine(a))
		}
	}
	for _, a := range []tui.Action{{Kind: tui.ActionQuit}, {Kind: tui.ActionLine, Text: "q"}} {
		if c, err := command.ParsePlay(PlayLine(a)); err != nil || c.Verb != command.VerbQuit {
			t.Errorf("%+v does not quit playing (%q): %v", a, PlayLine(a), err)
		}
	}
	if got := PlayLine(tui.Action{Kind: tui.ActionLine, Text: "seek +10s"}); got != "seek +10s" {
		t.Errorf("a bound line became %q", got)
	}
}
