package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/capture/capturetest"
	"github.com/aaep-term/aaep-term/internal/term"
)

// Two real producers on two bindings (SSE and gRPC), recorded by the real
// binary into one capture: version 2, each connection named in the header
// and on each of its lines; it checks clean per connection (both producers
// play the same sessions, IDs and all), and stats count each agent apart.
func TestBinaryTwoAgents(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	sse, grpc := capturetest.StartDemo(t, false), capturetest.StartDemoGRPC(t)
	path := filepath.Join(t.TempDir(), "two.aaep")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-o", path, "mail="+sse, "code="+grpc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("aaep-capture: %v\n%s", err, stderr.String())
	}
	errText := stderr.String()
	for _, w := range []string{"Recording 2 agents, mail (" + sse + "), code (" + grpc + "), to ", "\nmail: Subscribed", "\ncode: Subscribed", " from 2 of 2 agents to "} {
		if !strings.Contains(errText, w) {
			t.Errorf("standard error lacks %q:\n%s", w, errText)
		}
	}
	r, recs := capturetest.ReadAll(t, path)
	h := r.Header()
	if h == nil || h.Capture != 2 || len(h.Connections) != 2 {
		t.Fatalf("header %+v", h)
	}
	for i, want := range []capture.Connection{{ID: "c1", Label: "mail", Endpoint: sse, Transport: "sse", Subscriber: "aaep-capture"}, {ID: "c2", Label: "code", Endpoint: grpc, Transport: "grpc", Subscriber: "aaep-capture"}} {
		if h.Connections[i] != want {
			t.Errorf("connection %d: %+v, want %+v", i, h.Connections[i], want)
		}
	}
	perConn := map[string]int{}
	for _, rec := range recs {
		perConn[rec.Conn]++
	}
	if len(perConn) != 2 || perConn["c1"] < 20 || perConn["c2"] < 20 {
		t.Errorf("records per connection: %v", perConn)
	}
	if d, _ := r.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics: %v", d)
	}

	c, err := capture.NewChecker(capture.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if err := c.CheckAll(r2, func(st capture.Step) {
		for _, v := range st.Violations {
			t.Errorf("%s", v)
		}
	}); err != nil {
		t.Fatal(err)
	}
	for _, v := range c.Finish() {
		t.Errorf("%s", v)
	}

	r3, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r3.Close()
	st, err := capture.BuildStats(r3, path, capture.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byConn := map[string]int{}
	for _, a := range st.Agents {
		byConn[a.Connection] += a.Events
	}
	if byConn["mail"] == 0 || byConn["mail"] != byConn["code"] || byConn["mail"]+byConn["code"] != st.Total.Events || len(byConn) != 2 {
		t.Errorf("events per connection %v, in all %d", byConn, st.Total.Events)
	}
}

// Usage: labels must be unique and name an endpoint. (That plain JSONL
// cannot hold several agents is record.Options.Check's: TestCheck.)
func TestAgentsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-o", "x", "a=http://127.0.0.1:1", "a=http://127.0.0.1:2"},
		{"-o", "x", "a="},
	} {
		tio, _, _, _ := term.Test()
		if _, err := parseFlags(args, tio); err == nil || errors.Is(err, errHelp) {
			t.Errorf("%q: accepted", args)
		}
	}
}
