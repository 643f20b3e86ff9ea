package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	aaepterm "github.com/aaep-term/aaep-term"
	"github.com/aaep-term/aaep-term/producer"
)

// demo is the built-in producer a --demo run listens to.
type demo struct {
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
func startDemo(o *options) (demo, error) {
	scenarios, err := aaepterm.DemoScenarios(o.DemoScenarios)
	if err != nil {
		return demo{}, err // checked with the flags
	}
	p := producer.New(producer.Options{
		Scenarios:   scenarios,
		Speed:       demoPace(o.DemoSpeed),
		Quirks:      o.DemoQuirks,
		EndWhenDone: true,
	})
	binding := bindingHTTP
	if o.DemoGRPC {
		binding = bindingGRPC
	}
	url, stop, err := serveDemo(p, binding, o.IO.Eprintf)
	if err != nil {
		return demo{}, err
	}
	return demo{url, stop}, nil
}

// The bindings a demo producer is served over.
const (
	bindingHTTP = "http" // HTTP with Server-Sent Events
	bindingWS   = "ws"   // WebSocket
	bindingGRPC = "grpc"
)

// serveDemo serves p on a free loopback port over binding and returns its
// URL and a function that stops it: it closes p, then the server, and
// returns once the server's goroutine has ended. Calling it again does
// nothing. errf is told a failure of the server.
func serveDemo(p *producer.Producer, binding string, errf func(format string, args ...any)) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen on loopback: %w", err)
	}
	served := make(chan struct{})
	if binding == bindingGRPC {
		gs := p.GRPCServer()
		go func() {
			defer close(served)
			_ = gs.Serve(ln) // ends when stopped
		}()
		return "grpc://" + ln.Addr().String(), sync.OnceFunc(func() { p.Close(); gs.Stop(); <-served }), nil
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errf("demo producer: %v\n", err)
		}
	}()
	stop := func() {
		p.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
		<-served
	}
	return binding + "://" + ln.Addr().String(), sync.OnceFunc(stop), nil
}

// demoAgentsUsage is the help of --agents N with --demo, for the flag's
// help text.
const demoAgentsUsage = "with --demo: how many built-in demo agents to run at once " +
	"(1 to 5: code, mail, browser, calendar, backup), " +
	"each its own producer on its own binding, their prompts waiting at the same moments"

// demoAgentCount reads the value of --agents given with --demo: a number of
// built-in demo agents, from 1 to aaepterm.MaxDemoAgents.
func demoAgentCount(value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 || n > aaepterm.MaxDemoAgents {
		return 0, fmt.Errorf("--agents with --demo takes a number of demo agents from 1 to %d, not %q",
			aaepterm.MaxDemoAgents, value)
	}
	return n, nil
}

// demoBindings are the bindings the demo agents are served over, in turn,
// so that several agents show several bindings.
var demoBindings = []string{bindingHTTP, bindingWS, bindingGRPC}

// startDemoAgents serves the first n built-in demo agents
// (aaepterm.DemoAgents), each its own producer on a loopback port of its
// own, over HTTP with Server-Sent Events, WebSocket and gRPC in turn, at the
// pace of --demo-speed (speed). It returns their endpoints as LABEL=URL
// ("code=http://127.0.0.1:…"), as aaep-listen takes them, and one function
// that stops them all and returns once their servers' goroutines have
// ended. Each producer ends its streams once its agent's last scenario is
// over. errf is told a failure of a server.
func startDemoAgents(n int, speed float64, errf func(format string, args ...any)) ([]string, func(), error) {
	agents, err := aaepterm.DemoAgents(n)
	if err != nil {
		return nil, nil, err
	}
	var endpoints []string
	var stops []func()
	stopAll := func() {
		var wg sync.WaitGroup
		for _, stop := range stops {
			wg.Go(stop)
		}
		wg.Wait()
	}
	for i, a := range agents {
		opts := a.Options
		opts.Speed = demoPace(speed)
		url, stop, err := serveDemo(producer.New(opts), demoBindings[i%len(demoBindings)], errf)
		if err != nil {
			stopAll()
			return nil, nil, fmt.Errorf("start the demo agent %s: %w", a.Label, err)
		}
		endpoints = append(endpoints, a.Label+"="+url)
		stops = append(stops, stop)
	}
	return endpoints, sync.OnceFunc(stopAll), nil
}
