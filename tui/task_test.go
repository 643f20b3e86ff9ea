package tui

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The task key opens a one-line input for an agent started as
// acp:COMMAND: its label says whom the task is for, the message line says
// what to do and, after Enter, what was sent, in words; Escape or an
// empty line sends nothing and says so. With one agent and no list the
// task goes to it; with several agents, to the one that takes tasks, or
// to the one chosen in the agents view; an agent that takes none is said.
func TestTaskInput(t *testing.T) {
	taking := func(labels ...string) AgentsMsg {
		as := threeAgents()
		for i := range as {
			as[i].Tasks = slices.Contains(labels, as[i].Label)
		}
		return as
	}
	for _, tt := range []struct {
		name   string
		agents AgentsMsg
		keys   []string
		want   []Action
		label  string // the input's label, while it is open
		said   string // the message line at the end
	}{
		{"one agent, no list", nil, []string{"T", "fix the failing test", "enter"},
			[]Action{{Kind: ActionTell, Text: "fix the failing test"}}, "Task: ", "Sending the agent the task: fix the failing test"},
		{"escape sends nothing", nil, []string{"T", "half a task", "esc"}, nil, "Task: ", "No task sent."},
		{"an empty line sends nothing", nil, []string{"T", "enter"}, nil, "Task: ", "No task sent: the line was empty."},
		{"the one agent that takes tasks", taking("code"), []string{"T", "review it", "enter"},
			[]Action{{Kind: ActionTell, Agent: "code", Text: "review it"}}, "Task for code: ", "Sending code the task: review it"},
		{"a pasted line break is a space", taking("code"), []string{"T", "one\ntwo", "enter"},
			[]Action{{Kind: ActionTell, Agent: "code", Text: "one two"}}, "Task for code: ", "Sending code the task: one two"},
		{"several take tasks: choose one first", taking("mail", "code"), []string{"T"}, nil, "",
			"Several agents take tasks: choose one in the agents view (press A), then press T."},
		{"the agent chosen in the agents view", taking("mail", "code"), []string{"A", "down", "down", "T", "go on", "enter"},
			[]Action{{Kind: ActionTell, Agent: "code", Text: "go on"}}, "Task for code: ", "Sending code the task: go on"},
		{"the agent chosen takes no tasks", taking("code"), []string{"A", "down", "T"}, nil, "",
			"web takes no tasks: only an agent started as acp:COMMAND does."},
		{"no agent takes tasks", taking(), []string{"T"}, nil, "", "No agent here takes tasks: only an agent started as acp:COMMAND does."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			m := New(testOptions(t.TempDir(), rec))
			m.cur = &cursorPos{}
			m.Update(tea.WindowSizeMsg{Width: 140, Height: 24})
			if tt.agents != nil {
				m.Update(tt.agents)
			}
			label := ""
			for _, k := range tt.keys {
				if len(k) > 1 && k != "enter" && k != "esc" && k != "down" {
					m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k), Paste: true})
				} else {
					m.Update(keyMsg(k))
				}
				if m.mode == modeTask {
					if k == "T" && !strings.HasSuffix(m.message, ": type it; Enter sends it, Escape cancels.") {
						t.Errorf("opening the input says %q", m.message)
					}
					rows := strings.Split(m.View(), "\n")
					row := rows[m.cur.row(len(rows))]
					if i := strings.Index(row, "Task"); i >= 0 {
						label = row[i:]
					}
				}
			}
			if got := rec.actions(); !slices.Equal(got, tt.want) {
				t.Errorf("actions %+v\nwant    %+v", got, tt.want)
			}
			if tt.label != "" && !strings.HasPrefix(label, tt.label) {
				t.Errorf("the input's row (the cursor's) reads %q, want it to begin %q", label, tt.label)
			}
			if m.message != tt.said {
				t.Errorf("message %q\nwant    %q", m.message, tt.said)
			}
			if m.mode != modeList {
				t.Errorf("the input is still open")
			}
		})
	}
}

// A task says itself in line mode's words, the agent's label sanitized.
func TestTellString(t *testing.T) {
	if got := (Action{Kind: ActionTell, Agent: "code\x1b[2J", Text: "go"}).String(); got != "tell code go" {
		t.Errorf("String() = %q", got)
	}
}
