package main

// specs.go: the agents a run listens to, as the command line, --agents
// and --demo give them (console.AgentSpec).

import (
	"fmt"
	"slices"

	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/transport"
)

// agentSpec is one agent to listen to (console.AgentSpec).
type agentSpec = console.AgentSpec

// agentChange is an agent added or gone while running (console.AgentChange).
type agentChange = console.AgentChange

// readAgents reads the endpoints given as arguments, each ENDPOINT or
// LABEL=ENDPOINT, into o.Agents.
func (o *options) readAgents(args []string) error {
	parsed, err := agentspec.ParseAll(args)
	if err != nil {
		return err
	}
	for _, p := range parsed {
		if err := transport.CheckEndpoint(p.Endpoint); err != nil {
			return err
		}
		o.Agents = append(o.Agents, agentSpec{Label: p.Label, Endpoint: p.Endpoint})
	}
	if len(o.Agents) > 1 || o.Local {
		for _, a := range o.Agents {
			if a.Endpoint == "-" {
				return fmt.Errorf("- (events on standard input) cannot be listened to with other endpoints or --local: standard input takes your commands")
			}
		}
	}
	if len(o.Agents) > 0 {
		o.Endpoint = o.Agents[0].Endpoint
	}
	return nil
}

// agentSpecs are the agents to listen to, each with the terms to ask of
// it: the flags' (as settled by then), able to answer where its binding
// has a way back.
func (o *options) agentSpecs() []agentSpec {
	specs := slices.Clone(o.Agents)
	if len(specs) == 0 && o.Demo { // its endpoint is known once it runs
		specs = []agentSpec{{Endpoint: o.Endpoint}}
	}
	for i := range specs {
		s := &specs[i]
		if !s.FromFile {
			s.Terms = o.Terms
		} else {
			s.Terms.CanConfirm, s.Terms.CanClarify = o.Terms.CanConfirm, o.Terms.CanClarify // as the run settled them
		}
		if !o.Demo && !transport.BindingOf(s.Endpoint).Answers() {
			s.Terms.CanConfirm, s.Terms.CanClarify = false, false
		}
	}
	return specs
}

// eventsOnStdin reports whether standard input carries the events (the
// endpoint -), not commands.
func (o *options) eventsOnStdin() bool { return o.Endpoint == "-" }

// mayAnswer reports whether any agent of the run has a way back for
// answers: the demo's, a local producer's socket, or an endpoint's
// binding.
func (o *options) mayAnswer() bool {
	if o.Demo || o.Local || transport.BindingOf(o.Endpoint).Answers() {
		return true
	}
	for _, a := range o.Agents {
		if transport.BindingOf(a.Endpoint).Answers() {
			return true
		}
	}
	return false
}

// severalAgents reports whether the run has more than one agent, or may
// get more (--local): then speech and braille name whose words they say.
func (o *options) severalAgents() bool {
	return len(o.Agents) > 1 || o.Local
}
