package main

// local.go: --local, the producers of this machine found for you. A
// watcher (internal/localagents) reports the sockets in the spec's
// directory; watchLocal turns each into an agent added or gone on the
// listener's loop (agentChange), in the order they happened.

import (
	"context"
	"fmt"
	"os"

	"github.com/aaep-term/aaep-term/internal/localagents"
	"github.com/aaep-term/aaep-term/protocol"
)

// localExpected is how many agents a --local run bounds each agent's
// queue and duplicate memory for, as a run of that many would.
const localExpected = 8

// watchLocal starts watching the local producers' directory. It returns
// the agents to add or say gone, each new one once it accepts connections
// (localagents.Ready), and the line to say at the start; the channel
// closes when ctx ends or the directory can no longer be watched (its last
// change says why, as a line).
func watchLocal(ctx context.Context, getenv func(string) string) (<-chan agentChange, string, error) {
	dir := localagents.Dir(getenv)
	changes, err := localagents.Watch(ctx, dir)
	if err != nil {
		return nil, "", fmt.Errorf("--local: %w", err)
	}
	agents := localagents.Ready{}.Agents(ctx, changes)
	out := make(chan agentChange)
	go func() {
		defer close(out)
		for a := range agents {
			select {
			case out <- localChange(a):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, fmt.Sprintf("Listening for local agents in %s.", protocol.Name(dir)), nil
}

// localChange is the listener's change for a local agent.
func localChange(a localagents.Agent) agentChange {
	return agentChange{Spec: agentSpec{Label: a.Label, Endpoint: a.Endpoint, Found: true}, Gone: a.Gone, Note: a.Note}
}

// getenv reads the environment as the options say (os.Getenv by default).
func (o *options) getenv() func(string) string {
	if o.Getenv == nil {
		return os.Getenv
	}
	return o.Getenv
}
