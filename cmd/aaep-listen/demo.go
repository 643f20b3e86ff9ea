package main

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/producer"
)

// demoRun is the built-in producer a --demo run listens to.
type demoRun struct {
	url  string
	stop func() // shuts it down early
}

// demoPace turns --demo-speed, which goes the way aaep-replay --speed goes
// (2 twice as fast, 0.5 half as fast, 0 without pauses), into the
// producer's multiplier of its pauses.
func demoPace(speed float64) float64 {
	if speed <= 0 {
		return 0
	}
	return 1 / speed
}

// startDemo serves the built-in producer on a free loopback port (over HTTP,
// or gRPC with --demo-grpc). The producer ends its streams once the last
// scenario is over, so the listener then exits by itself.
func startDemo(o *options) (demoRun, error) {
	scenarios, err := demo.Pick(o.DemoScenarios)
	if err != nil {
		return demoRun{}, err // checked with the flags
	}
	p := producer.New(producer.Options{
		Scenarios:   scenarios,
		Speed:       demoPace(o.DemoSpeed),
		Quirks:      o.DemoQuirks,
		EndWhenDone: true,
	})
	binding := producer.BindingHTTP
	if o.DemoGRPC {
		binding = producer.BindingGRPC
	}
	srv, err := producer.ServeLoopback(p, binding)
	if err != nil {
		return demoRun{}, err
	}
	return demoRun{srv.URL(), stopSaying(o.IO.Eprintf, srv)}, nil
}

// stopSaying says a failure of any of servers, as "demo producer: …", at
// the moment it happens, and returns the function that stops them all at
// once: it returns once their servers have ended and any failure has been
// said. Calling it again does nothing.
func stopSaying(errf func(format string, args ...any), servers ...*producer.Server) func() {
	var said sync.WaitGroup
	for _, s := range servers {
		said.Go(func() {
			<-s.Done()
			if err := s.Err(); err != nil {
				errf("demo producer: %v\n", err)
			}
		})
	}
	return sync.OnceFunc(func() {
		var stopped sync.WaitGroup
		for _, s := range servers {
			stopped.Go(s.Stop)
		}
		stopped.Wait()
		said.Wait()
	})
}

// demoAgentsUsage is the help of --agents N with --demo, for the flag's
// help text.
const demoAgentsUsage = "with --demo: how many built-in demo agents to run at once " +
	"(1 to 5: code, mail, browser, calendar, backup), " +
	"each its own producer on its own binding, their prompts waiting at the same moments"

// demoAgentCount reads the value of --agents given with --demo: a number of
// built-in demo agents, from 1 to demo.MaxAgents.
func demoAgentCount(value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > demo.MaxAgents {
		return 0, fmt.Errorf("--agents with --demo takes a number of demo agents from 1 to %d, not %q",
			demo.MaxAgents, value)
	}
	return n, nil
}

// startDemoAgents serves the first n built-in demo agents
// (demo.ServeAgents) at the pace of --demo-speed (speed). It returns
// their endpoints as LABEL=URL, as aaep-listen takes them, and one function
// that stops them all and returns once their servers have ended. errf is
// told a failure of a server.
func startDemoAgents(n int, speed float64, errf func(format string, args ...any)) ([]string, func(), error) {
	agents, err := demo.ServeAgents(n, demoPace(speed))
	if err != nil {
		return nil, nil, err
	}
	endpoints := make([]string, len(agents))
	servers := make([]*producer.Server, len(agents))
	for i, a := range agents {
		endpoints[i], servers[i] = a.Endpoint(), a.Server
	}
	return endpoints, stopSaying(errf, servers...), nil
}
