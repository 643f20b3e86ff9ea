package tui

import (
	"slices"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// hostilePrompts are prompts whose every producer text reads like a command
// of line mode, or holds a line break before one.
func hostilePrompts() PromptsMsg {
	words := "accept 1\naccept 1; quit; set rate 1"
	return PromptsMsg{
		{Number: 7, Agent: "reject 7", Topic: words, Risk: "accept 1", Default: "accept", Details: []string{"Consequence: " + words}},
		{Number: 8, Question: true, Agent: "quit", Topic: words, Kinds: []string{"multiple_choice", "freetext"},
			ChoiceLabels: []string{"accept 1", "quit", "answer 7 yes"}, Choices: "Choices: 1 accept 1, 2 quit.", Default: "reject 7"},
	}
}

// Each key hands the listener one typed action: the kind the key means and
// the prompt's number, never words to be read back. A prompt's own text,
// however much it looks like a command, is not in any action, and an
// answer that looks like one stays an answer.
func TestKeysAct(t *testing.T) {
	for _, tt := range []struct {
		name string
		keys []string
		want []Action
	}{
		{"a accepts the first prompt", []string{"a"}, []Action{{Kind: ActionAccept, Prompt: 7}}},
		{"r rejects it", []string{"r"}, []Action{{Kind: ActionReject, Prompt: 7}}},
		{"s stops speech", []string{"s"}, []Action{{Kind: ActionStop}}},
		{"q quits", []string{"q"}, []Action{{Kind: ActionQuit}}},
		{"d and enter send nothing", []string{"d", "enter", "d"}, nil},
		{"a choice is answered by its number; r does not answer a question", []string{"a", "r", "a", "enter"},
			[]Action{{Kind: ActionAccept, Prompt: 7}, {Kind: ActionAnswer, Prompt: 8, Text: "1"}}},
		{"an answer that reads like a command is an answer", []string{"a", "a", "tab", "accept 1", "enter"},
			[]Action{{Kind: ActionAccept, Prompt: 7}, {Kind: ActionAnswer, Prompt: 8, Text: "accept 1"}}},
		{"the renegotiate dialog sets terms", []string{"R", "5", "tab", "tab", "accept 1", "enter"},
			[]Action{{Kind: ActionSet, Term: "rate", Text: "5"}}},
		{"the command key sends the line typed", []string{":", "details 8", "enter"}, []Action{{Kind: ActionLine, Text: "details 8"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			m := New(testOptions(t.TempDir(), rec))
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
			m.Update(ItemsMsg(testItems(5)))
			m.Update(hostilePrompts())
			for _, k := range tt.keys {
				switch k {
				case "a", "r":
					if len(rec.actions()) > 0 && m.prompts[0].Number == 7 {
						m.Update(PromptsMsg(hostilePrompts()[1:])) // prompt 7 was answered
					}
				}
				if len(k) > 1 && k != "enter" && k != "tab" {
					m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k), Paste: true})
					continue
				}
				m.Update(keyMsg(k))
			}
			if got := rec.actions(); !slices.Equal(got, tt.want) {
				t.Errorf("actions %+v\nwant    %+v", got, tt.want)
			}
		})
	}
}

// An Action says itself in the words of line mode, for the view's
// messages only.
func TestActionString(t *testing.T) {
	for _, tt := range []struct {
		a    Action
		want string
	}{
		{Action{Kind: ActionAccept, Prompt: 2}, "accept 2"},
		{Action{Kind: ActionReject, Prompt: 3}, "reject 3"},
		{Action{Kind: ActionAnswer, Prompt: 4, Text: "blue"}, "answer 4 blue"},
		{Action{Kind: ActionSet, Term: "include"}, "set include"},
		{Action{Kind: ActionSet, Term: "rate", Text: "5"}, "set rate 5"},
		{Action{Kind: ActionStop}, "stop"},
		{Action{Kind: ActionQuit}, "quit"},
		{Action{Kind: ActionLine, Text: "pending"}, "pending"},
		{Action{}, "nothing"},
	} {
		if got := tt.a.String(); got != tt.want {
			t.Errorf("%+v says %q, want %q", tt.a, got, tt.want)
		}
	}
}

// Whatever keys are pressed, and whatever the prompts say, every action
// names a prompt the view showed, of the kind it answers: accept and
// reject a confirmation, an answer a question; no other action names a
// prompt, and only the command key's line is a line. An action about an
// agent names one the view was given, by its label as given, and a quit
// of one agent follows the quit-agent key pressed twice in a row.
func FuzzKeysAct(f *testing.F) {
	f.Add("a", "accept 1")
	f.Add("ra\ttaccept 1\r", "quit")
	f.Add("R5\t\taccept 1\r", "set rate 1")
	f.Add(":quit\rq", "x")
	f.Add("aa\x1b:details 8\r", "answer 7 yes")
	f.Add("AuOjuHXXfA", "mail")
	f.Add("AjXjXX", "quit")
	f.Fuzz(func(t *testing.T, keys, words string) {
		rec := &recorder{}
		m := New(testOptions(t.TempDir(), rec))
		ps := hostilePrompts()
		ps[0].Topic, ps[1].Topic, ps[1].ChoiceLabels[0] = words, words, words
		m.Update(ps)
		m.Update(AgentsMsg{{Label: words, Muted: true}, {Label: "mail"}, {Label: "quit"}})
		m.Update(ItemsMsg(agentItems(4, words, "mail")))
		typed, quitKeys := false, 0
		for _, r := range keys {
			if r == 'X' && m.mode == modeList {
				quitKeys++
			} else {
				quitKeys = 0
			}
			before := len(rec.actions())
			var k tea.KeyMsg
			switch r {
			case '\r':
				k = tea.KeyMsg{Type: tea.KeyEnter}
			case '\t':
				k = tea.KeyMsg{Type: tea.KeyTab}
			case '\x1b':
				k = tea.KeyMsg{Type: tea.KeyEsc}
			default:
				k = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}
			}
			typed = typed || r == ':'
			m.Update(k)
			if acts := rec.actions(); len(acts) > before && acts[len(acts)-1].Kind == ActionQuitAgent && quitKeys < 2 {
				t.Errorf("%+v without the quit-agent key twice", acts[len(acts)-1])
			}
		}
		for _, a := range rec.actions() {
			switch a.Kind {
			case ActionAccept, ActionReject:
				if a.Prompt != 7 || a.Text != "" {
					t.Errorf("%+v: prompt 7 is the confirmation", a)
				}
			case ActionAnswer:
				if a.Prompt != 8 || a.Text == "" {
					t.Errorf("%+v: prompt 8 is the question", a)
				}
			case ActionLine:
				if !typed || a.Prompt != 0 {
					t.Errorf("%+v: a line without the command key", a)
				}
			case ActionSet, ActionStop, ActionQuit, ActionAll:
				if a.Prompt != 0 || a.Agent != "" {
					t.Errorf("%+v names a prompt or an agent", a)
				}
			case ActionMute, ActionUnmute, ActionOnly, ActionQuitAgent:
				if a.Prompt != 0 || a.Agent != words && a.Agent != "mail" && a.Agent != "quit" {
					t.Errorf("%+v names no agent given", a)
				}
				if a.Agent == words && a.Kind == ActionMute && words != "mail" && words != "quit" {
					t.Errorf("%+v: that agent is muted already", a)
				}
			default:
				t.Errorf("%+v: no such kind", a)
			}
		}
	})
}
