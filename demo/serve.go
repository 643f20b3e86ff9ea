package demo

import (
	"fmt"
	"sync"

	"github.com/aaep-term/aaep-term/producer"
)

// bindings are the bindings the demo agents are served over, in turn,
// so that several agents show several bindings.
var bindings = []producer.Binding{producer.BindingHTTP, producer.BindingWebSocket, producer.BindingGRPC}

// ServedAgent is a built-in demo agent served on a loopback port.
type ServedAgent struct {
	Label string // "code", "mail", …: see Agents
	*producer.Server
}

// Endpoint is the agent as aaep-listen and aaep-capture take it on their
// command lines: LABEL=URL ("code=http://127.0.0.1:…").
func (a ServedAgent) Endpoint() string { return a.Label + "=" + a.URL() }

// ServeAgents serves the first n built-in demo agents (Agents),
// each its own producer on a loopback port of its own, over HTTP with
// Server-Sent Events, WebSocket and gRPC in turn. pace multiplies the
// pauses of their scenarios (1 as written, 0 none). Each producer ends its
// streams once its agent's last scenario is over. When one cannot be
// served, those already served are stopped.
func ServeAgents(n int, pace float64) ([]ServedAgent, error) {
	agents, err := Agents(n)
	if err != nil {
		return nil, err
	}
	served := make([]ServedAgent, 0, n)
	for i, a := range agents {
		opts := a.Options
		opts.Speed = pace
		s, err := producer.ServeLoopback(producer.New(opts), bindings[i%len(bindings)])
		if err != nil {
			StopAgents(served)
			return nil, fmt.Errorf("serve the demo agent %s: %w", a.Label, err)
		}
		served = append(served, ServedAgent{Label: a.Label, Server: s})
	}
	return served, nil
}

// StopAgents stops every agent at once and returns once all their
// servers have ended.
func StopAgents(agents []ServedAgent) {
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Go(a.Stop)
	}
	wg.Wait()
}
