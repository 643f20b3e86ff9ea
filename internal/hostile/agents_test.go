package hostile_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/internal/hostile"
	prod "github.com/aaep-term/aaep-term/producer"
)

// localAgents runs aaep-listen --local on a directory holding two sockets
// named with h, each served by our producer playing an agent named h:
// every line about them (found, subscribed, events, prompts, the agents
// and pending lists) names them by what the file and the producer say.
func localAgents(t *testing.T, h string) string {
	// A socket's path is at most 108 bytes: a short directory, and a short
	// name when h is long (the agents' names stay h whole).
	runtime, err := os.MkdirTemp("/tmp", "h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	dir := filepath.Join(runtime, "aaep")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A file name holds no '/': a look-alike slash stands for it.
	name := strings.ReplaceAll(h, "/", "\u2215")
	if len(name) > 70 {
		name = hostile.GraphemeRun(30)
	}
	scenarios, err := demo.Pick([]string{"confirm"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for i, suffix := range []string{"-a.sock", "-b.sock"} {
		sc := append([]prod.Scenario{}, scenarios...)
		for j := range sc {
			sc[j].Agent = prod.Agent{ID: fmt.Sprintf("agent-%d", i), Name: h, Version: h}
		}
		ln, err := prod.ListenUnix(filepath.Join(dir, name+suffix))
		if err != nil {
			t.Fatal(err)
		}
		p := prod.New(prod.Options{Scenarios: sc})
		go p.ServeUnix(ctx, ln) //nolint:errcheck // ends with ctx
	}
	return listenTwoPrompts(t, []string{"XDG_RUNTIME_DIR=" + runtime}, "--local")
}

// captureAgents records two hostile producers at once, one labelled, one
// not: the status lines on standard error name each agent, and carry what
// it answered (h in its notes, names, refusal and close).
func captureAgents(t *testing.T, h string) string {
	return run(t, "aaep-capture", "--output", filepath.Join(t.TempDir(), "c.aaep"), "--no-progress", "--max-events", "2",
		"mail="+handshakeProducer(t, h), handshakeProducer(t, h))
}
