package main

// local.go: --local, the producers of this machine found for you. A
// watcher (internal/localagents) reports the sockets in the spec's
// directory; watchLocal turns each into an agent added or gone on the
// listener's loop (agentChange), in the order they happened.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/localagents"
	"github.com/aaep-term/aaep-term/protocol"
)

// localDialTries bounds how often a socket that has just appeared is
// tried before it is handed to the listener: the kernel reports a socket
// as soon as it is bound, which may be before its producer listens, and a
// first connection refused would end the agent at once. The waits double
// from localDialWait: at most about 1.3 seconds in all, for that socket
// alone (later changes wait behind it, in order).
const (
	localDialTries = 7
	localDialWait  = 10 * time.Millisecond
)

// localExpected is how many agents a --local run bounds each agent's
// queue and duplicate memory for, as a run of that many would.
const localExpected = 8

// watchLocal starts watching the local producers' directory. It returns
// the agents to add or say gone, and the line to say at the start; the
// channel closes when ctx ends or the directory can no longer be watched
// (its last change says why, as a line).
func watchLocal(ctx context.Context, getenv func(string) string) (<-chan agentChange, string, error) {
	dir := localagents.Dir(getenv)
	changes, err := localagents.Watch(ctx, dir)
	if err != nil {
		return nil, "", fmt.Errorf("--local: %w", err)
	}
	out := make(chan agentChange)
	go func() {
		defer close(out)
		for ch := range changes {
			select {
			case out <- localChange(ctx, ch):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, fmt.Sprintf("Listening for local agents in %s.", protocol.Name(dir)), nil
}

// localChange is the listener's change for one the watcher reported: a
// socket refused or a watch ended is only a line to say; a new socket is
// an agent labelled by its file name when that makes a label (else named
// by its endpoint), once it accepts connections or its tries run out.
func localChange(ctx context.Context, ch localagents.Change) agentChange {
	if ch.Refused != "" || ch.Err != nil {
		return agentChange{Note: ch.String()}
	}
	spec := agentSpec{Endpoint: localagents.Endpoint(ch.Path)}
	if l := localagents.Label(ch.Path); agentspec.ValidLabel(l) {
		spec.Label = l
	}
	if !ch.Gone {
		awaitListening(ctx, ch.Path)
	}
	return agentChange{Spec: spec, Gone: ch.Gone}
}

// awaitListening returns once the socket at path accepts a connection,
// refuses it for another reason than nobody listening yet, or
// localDialTries have been refused (a bounded backoff). The connection
// made to find out is closed at once, before anything is sent.
func awaitListening(ctx context.Context, path string) {
	wait := localDialWait
	for try := 1; ; try++ {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", path)
		if err == nil {
			c.Close()
			return
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || try == localDialTries {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		wait *= 2
	}
}

// getenv reads the environment as the options say (os.Getenv by default).
func (o *options) getenv() func(string) string {
	if o.Getenv == nil {
		return os.Getenv
	}
	return o.Getenv
}
