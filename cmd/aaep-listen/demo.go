package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return demo{}, fmt.Errorf("listen on loopback: %w", err)
	}
	if o.DemoGRPC {
		gs := p.GRPCServer()
		go func() { _ = gs.Serve(ln) }() // ends when stopped
		return demo{"grpc://" + ln.Addr().String(), func() { p.Close(); gs.Stop() }}, nil
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.IO.Eprintf("demo producer: %v\n", err)
		}
	}()
	stop := func() {
		p.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}
	return demo{"http://" + ln.Addr().String(), stop}, nil
}
