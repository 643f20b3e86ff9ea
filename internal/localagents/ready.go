package localagents

// ready.go: a socket appeared; wait until it accepts connections.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/aaep-term/aaep-term/internal/agentspec"
)

// The bounds of Ready's dials when its fields are zero: seven tries, the
// six pauses between them doubling from 10 ms, 630 ms in all, for that
// socket alone.
const (
	DefaultTries = 7
	DefaultWait  = 10 * time.Millisecond
)

// Agent is what a listener does about one Change: subscribe to an agent,
// say it gone, or only say a line.
type Agent struct {
	// Label names the agent: the socket's file name (see Label) when that
	// is a valid label (agentspec.ValidLabel), else "" (the listener then
	// names it by its endpoint).
	Label    string
	Endpoint string // unix:PATH; "" when the change is only a line (Note)
	Gone     bool   // the socket went: say the agent gone
	// Note, when not empty, is the one plain line to say instead: a socket
	// refused (another user's), one that never accepted a connection, or
	// the end of the watch.
	Note string
}

// Ready turns Changes into Agents. The kernel reports a socket as soon as
// it is bound, which may be before its producer listens, and a first
// connection refused would end the agent at once; so a new socket is
// dialled until it accepts a connection, a bounded number of times. The
// connection made to find out is closed at once, before anything is sent.
type Ready struct {
	Tries int           // dials before giving up; 0 means DefaultTries
	Wait  time.Duration // the first pause between two dials, doubled after each; 0 means DefaultWait
	// OnRefused, when not nil, is called after each dial the socket
	// refused because nobody listens on it yet, with the try's number from
	// 1, before the pause (for tests).
	OnRefused func(path string, try int)
}

// Agents reports each change of changes (see Watch) as an Agent, in the
// order they happened: a new socket once it accepts connections (a later
// change waits behind it), until changes closes or ctx ends; then the
// channel closes.
func (r Ready) Agents(ctx context.Context, changes <-chan Change) <-chan Agent {
	out := make(chan Agent)
	go func() {
		defer close(out)
		for ch := range changes {
			select {
			case out <- r.Agent(ctx, ch):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// Agent is the Agent of one change; for a new socket it returns once the
// socket accepts a connection, refuses it for another reason than nobody
// listening yet (the listener then says that reason when it subscribes),
// or the tries have run out: then it is only a line saying so.
func (r Ready) Agent(ctx context.Context, ch Change) Agent {
	if ch.Refused != "" || ch.Err != nil {
		return Agent{Note: ch.String()}
	}
	a := Agent{Endpoint: Endpoint(ch.Path), Gone: ch.Gone}
	if l := Label(ch.Path); agentspec.ValidLabel(l) {
		a.Label = l
	}
	if !ch.Gone && !r.await(ctx, ch.Path) && ctx.Err() == nil {
		return Agent{Note: fmt.Sprintf("Not subscribing to the agent %s: its socket refused all %d connections tried over %d milliseconds; restart the agent to try again.",
			Label(ch.Path), r.tries(), r.patience().Milliseconds())}
	}
	return a
}

func (r Ready) tries() int {
	if r.Tries <= 0 {
		return DefaultTries
	}
	return r.Tries
}

func (r Ready) wait() time.Duration {
	if r.Wait <= 0 {
		return DefaultWait
	}
	return r.Wait
}

// patience is the sum of the pauses between the tries.
func (r Ready) patience() time.Duration {
	var d time.Duration
	for i, w := 1, r.wait(); i < r.tries(); i, w = i+1, w*2 {
		d += w
	}
	return d
}

// await dials the socket at path until it accepts: it reports false when
// every try was refused because nobody listens, or ctx ended.
func (r Ready) await(ctx context.Context, path string) bool {
	wait := r.wait()
	for try := 1; ; try++ {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", path)
		if err == nil {
			c.Close()
			return true
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return true // the listener says why when it subscribes
		}
		if r.OnRefused != nil {
			r.OnRefused(path, try)
		}
		if try >= r.tries() {
			return false
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		}
		wait *= 2
	}
}
