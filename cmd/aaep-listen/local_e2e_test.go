package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
)

// --local with an explicit endpoint: a real producer serving a Unix socket
// made in the watched directory after aaep-listen started is subscribed to,
// announced by its label, heard and answered; removing its socket says the
// agent has gone, and the other agent goes on.
func TestLocalAgentFoundAndGone(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	_, bankURL := serve(t, producer.Options{Scenarios: scenarios(t, "happy")})
	r := startListener(t, "--plain", "--no-time", "--local", "bank="+bankURL)
	r.waitOutput(t, "Listening for local agents in "+filepath.Join(runtime, "aaep")+".")

	sock := filepath.Join(runtime, "aaep", "mail.sock")
	ln, err := producer.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	p := producer.New(producer.Options{Scenarios: scenarios(t, "confirm")})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.ServeUnix(ctx, ln) }()
	t.Cleanup(func() { p.Close(); cancel() })

	r.waitOutput(t, "New agent: mail.")
	n := r.numberOf(t, "mail")
	fmt.Fprintf(r.stdin, "accept %s\nyes\n", n)
	r.waitOutput(t, "mail: Sent your answer to prompt "+n)
	// Sent over the socket is not yet read by the producer: wait for it.
	if o := waitOutcomes(t, p, 1); len(o) != 1 || o[0].Resolution != producer.Accepted {
		t.Errorf("the local producer: %+v, want accepted\n%s", o, r.stdout())
	}

	p.Close() // the producer stops and its socket goes
	cancel()
	<-served
	_ = os.Remove(sock)
	r.waitOutput(t, "Agent mail has gone.")
	r.waitOutput(t, "bank: Finished")
	fmt.Fprintf(r.stdin, "quit\n")
	r.wait(t)
	out := r.stdout()
	if strings.Count(out, "New agent: mail.") != 1 {
		t.Errorf("the new agent was not said once:\n%s", out)
	}
}
