package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/producer"
)

// --local with 200 sockets that accept a connection and never say a word
// (more than the 64 agents listened to at once), then a real producer: the
// silent ones are closed to make room, and the real one is subscribed to
// and heard. The silent sockets held every place and the real agent was
// refused.
func TestLocalSilentSocketsHoldNoPlace(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	dir := filepath.Join(runtime, "aaep")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		ln, err := net.Listen("unix", filepath.Join(dir, fmt.Sprintf("silent-%03d.sock", i)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
	}
	r := startListener(t, "--plain", "--no-time", "--local")
	r.waitOutput(t, "Listening for local agents in "+dir+".")
	r.waitOutputCount(t, "New agent: silent-", console.MaxAgents)

	ln, err := producer.ListenUnix(filepath.Join(dir, "bank.sock"))
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: scenarios(t, "happy")})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.ServeUnix(ctx, ln) }()
	t.Cleanup(func() { p.Close(); cancel(); <-served })

	r.waitOutput(t, "New agent: bank.")
	r.waitOutput(t, "bank: Finished")
	fmt.Fprintf(r.stdin, "quit\n")
	r.wait(t)
}
