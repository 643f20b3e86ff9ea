// Package demo holds the demo built into the commands: the demo producer's
// scenarios (the scenarios directory), and the built-in demo agents
// (scenarios/agents), each served as a producer of its own.
package demo

import (
	"embed"
	"fmt"
	"path"

	"github.com/aaep-term/aaep-term/producer"
)

// Scenarios is the demo producer's scenario directory, read-only.
//
//go:embed scenarios/*.json
var Scenarios embed.FS

// Pick are the built-in scenarios that names names, in the order
// they are built in; all of them when names is empty. A name that is not
// built in is an error naming the ones that are.
func Pick(names []string) ([]producer.Scenario, error) {
	all, err := producer.LoadScenarios(Scenarios, "scenarios")
	if err != nil {
		return nil, fmt.Errorf("load the demo scenarios: %w", err)
	}
	if len(names) == 0 {
		return all, nil
	}
	return producer.SelectScenarios(all, names)
}

// AgentScenarios holds the scenarios of the built-in demo agents, one
// directory per agent under scenarios/agents, named by its label.
//
//go:embed scenarios/agents/*/*.json
var AgentScenarios embed.FS

// agentLabels are the built-in demo agents, in the order Agents
// returns them.
var agentLabels = [...]string{"code", "mail", "browser", "calendar", "backup"}

// MaxAgents is how many demo agents are built in.
const MaxAgents = len(agentLabels)

// Agent is one built-in demo agent: a producer of its own, with its own
// identity and scenarios, whose sessions and prompts overlap with the other
// demo agents' so that a listener hears several agents at once.
type Agent struct {
	// Label names the agent on command lines and on every line said about
	// it: "code", "mail", "browser", "calendar", "backup".
	Label string
	// Agent is its identity, the producer object of each of its events.
	Agent producer.Agent
	// Options are its producer's: its scenarios, at natural speed (Speed
	// 1), ending its streams when the last scenario ends (EndWhenDone).
	Options producer.Options
}

// Agents returns the first n built-in demo agents: a coding agent that
// runs tests and asks to push and to delete a branch ("code"), a mail agent
// that asks which address to answer and whether to send ("mail"), a browser
// agent that fills in a form, asks to pay and hands over to you ("browser"),
// a calendar agent that asks for a number ("calendar"), and a backup agent
// that asks to delete old backups and fails without them ("backup").
func Agents(n int) ([]Agent, error) {
	if n < 1 || n > MaxAgents {
		return nil, fmt.Errorf("there are %d demo agents: ask for 1 to %d, not %d", MaxAgents, MaxAgents, n)
	}
	agents := make([]Agent, n)
	ids := map[string]string{}
	for i, label := range agentLabels[:n] {
		scenarios, err := producer.LoadScenarios(AgentScenarios, path.Join("scenarios/agents", label))
		if err != nil {
			return nil, fmt.Errorf("load the scenarios of the demo agent %s: %w", label, err)
		}
		id := scenarios[0].Agent
		for _, sc := range scenarios[1:] {
			if sc.Agent != id {
				return nil, fmt.Errorf("the demo agent %s: scenario %s is played by %q, not %q", label, sc.Name, sc.Agent.ID, id.ID)
			}
		}
		if other, ok := ids[id.ID]; ok {
			return nil, fmt.Errorf("the demo agents %s and %s share the agent_id %q", other, label, id.ID)
		}
		ids[id.ID] = label
		agents[i] = Agent{
			Label:   label,
			Agent:   id,
			Options: producer.Options{Scenarios: scenarios, Speed: 1, EndWhenDone: true},
		}
	}
	return agents, nil
}
