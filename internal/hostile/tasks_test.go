package hostile_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"

	aaep "github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// refusedTask runs aaep-listen on a producer that takes tasks and refuses
// every one with h as its reason, over its Unix socket (an agtask:refused
// message) and over HTTP (a 409 whose body is h), and gives it a task on
// each: the refusal's line carries h.
func refusedTask(t *testing.T, h string) string {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := aaep.New(aaep.Options{Live: &aaep.Live{
		Agent: aaep.Agent{ID: "bank", Name: "bank", Version: "1"},
		Next: func(ctx context.Context) ([]byte, error) {
			<-ctx.Done() // the agent never does anything
			return nil, ctx.Err()
		},
		Messages: map[string]func([]byte) error{
			protocol.TypeTask: func([]byte) error { return errors.New(h) },
		},
		Honored: map[string]json.RawMessage{protocol.TasksPrefix: protocol.TasksCapability},
	}})
	go p.Run(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir, remove := socketDir(t)
	defer remove()
	uln, err := aaep.ListenUnix(filepath.Join(dir, "bank.sock"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := aaep.ServeBindings(aaep.OneRun(p), aaep.Listeners{HTTP: ln, Unix: uln})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	var all strings.Builder
	for _, url := range srv.URLs() {
		if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "unix:") {
			all.WriteString(tellRefused(t, url))
		}
	}
	return all.String()
}

// tellRefused runs aaep-listen on url, gives the producer a task once it
// says it takes tasks, and returns all it printed once the refusal is
// said.
func tellRefused(t *testing.T, url string) string {
	out, stdin, stop := typedListenerOn(t, url)
	defer stop()
	// "Listening to" may come before the producer's acceptance is taken:
	// ask for the terms until they say the producer takes tasks.
	if !out.waitFor("Listening to") {
		t.Errorf("%s: the listener never started:\n%s", url, clip(out.String()))
		return out.String()
	}
	for n := 1; !strings.Contains(out.String(), "the producer grants"); n++ {
		stdin.Write([]byte("terms\n"))
		if !out.waitFor(func(s string) bool { return strings.Count(s, "Terms:") >= n }) {
			t.Errorf("%s: the terms were never said:\n%s", url, clip(out.String()))
			return out.String()
		}
	}
	stdin.Write([]byte("tell do it\n"))
	if !out.waitFor("The producer refused your task.") {
		t.Errorf("%s: the refusal was never said:\n%s", url, clip(out.String()))
	}
	return out.String()
}
