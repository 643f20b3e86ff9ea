package tui

// task.go: the task input, a line for an agent started as acp:COMMAND.
// What it asks and what it sent are said in the message line, in words.

import (
	"fmt"
	"strings"
)

// openTask opens the task input for the agent selected in the agents
// view, or for the one agent that takes tasks; it says why not when there
// is no such agent, or several and none chosen.
func (m *Model) openTask() {
	a, why := m.taskAgent()
	if why != "" {
		m.message = why
		return
	}
	m.taskFor = a
	m.mode = modeTask
	m.input.set("")
	m.message = strings.TrimSuffix(m.taskLabel(), ": ") + ": type it; Enter sends it, Escape cancels."
}

// taskAgent is a copy of the agent a task goes to (a new list of agents
// may come while the user types), nil for the one agent of a run without
// a list, or why there is none.
func (m *Model) taskAgent() (*agentRow, string) {
	if m.view == viewAgents && len(m.agents) > 0 {
		a := m.agents[m.agentSel]
		if !a.Tasks {
			return nil, a.Label + " takes no tasks: only an agent started as acp:COMMAND does."
		}
		return &a, ""
	}
	var takers []agentRow
	for _, a := range m.agents {
		if a.Tasks {
			takers = append(takers, a)
		}
	}
	switch {
	case len(takers) == 1:
		return &takers[0], ""
	case len(takers) > 1:
		return nil, fmt.Sprintf("Several agents take tasks: choose one in the agents view (press %s), then press %s.",
			keyName(m.keys.Agents), keyName(m.keys.Task))
	case len(m.agents) > 1:
		return nil, "No agent here takes tasks: only an agent started as acp:COMMAND does."
	}
	return nil, "" // one agent and no list: the listener gives it the task, or says it takes none
}

// taskLabel is the task input's label.
func (m *Model) taskLabel() string {
	if m.taskFor == nil {
		return "Task: "
	}
	return "Task for " + m.taskFor.Label + ": "
}

// sendTask hands the listener the task typed, and says what was sent.
func (m *Model) sendTask(text string) {
	if text == "" {
		m.message = "No task sent: the line was empty."
		return
	}
	a := Action{Kind: ActionTell, Text: text}
	to := "the agent"
	if m.taskFor != nil {
		a.Agent, to = m.taskFor.raw, m.taskFor.Label
	}
	m.act(a)
	if strings.HasPrefix(m.message, "Sending: ") { // else act said why not
		m.message = "Sending " + to + " the task: " + text
	}
}
