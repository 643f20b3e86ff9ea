package aaepterm

import (
	"fmt"
	"sync"

	"github.com/aaep-term/aaep-term/producer"
)

// demoBindings are the bindings the demo agents are served over, in turn,
// so that several agents show several bindings.
var demoBindings = []producer.Binding{producer.BindingHTTP, producer.BindingWebSocket, producer.BindingGRPC}

// ServedDemoAgent is a built-in demo agent served on a loopback port.
type ServedDemoAgent struct {
	Label string // "code", "mail", …: see DemoAgents
	*producer.Server
}

// Endpoint is the agent as aaep-listen and aaep-capture take it on their
// command lines: LABEL=URL ("code=http://127.0.0.1:…").
func (a ServedDemoAgent) Endpoint() string { return a.Label + "=" + a.URL() }

// ServeDemoAgents serves the first n built-in demo agents (DemoAgents),
// each its own producer on a loopback port of its own, over HTTP with
// Server-Sent Events, WebSocket and gRPC in turn. pace multiplies the
// pauses of their scenarios (1 as written, 0 none). Each producer ends its
// streams once its agent's last scenario is over. When one cannot be
// served, those already served are stopped.
func ServeDemoAgents(n int, pace float64) ([]ServedDemoAgent, error) {
	agents, err := DemoAgents(n)
	if err != nil {
		return nil, err
	}
	served := make([]ServedDemoAgent, 0, n)
	for i, a := range agents {
		opts := a.Options
		opts.Speed = pace
		s, err := producer.ServeLoopback(producer.New(opts), demoBindings[i%len(demoBindings)])
		if err != nil {
			StopDemoAgents(served)
			return nil, fmt.Errorf("serve the demo agent %s: %w", a.Label, err)
		}
		served = append(served, ServedDemoAgent{Label: a.Label, Server: s})
	}
	return served, nil
}

// StopDemoAgents stops every agent at once and returns once all their
// servers have ended.
func StopDemoAgents(agents []ServedDemoAgent) {
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Go(a.Stop)
	}
	wg.Wait()
}
