package localagents

// ready.go: a socket appeared; wait until it accepts connections.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
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

// DefaultParallel is how many new sockets Agents dials at once when
// Ready.Parallel is zero: a socket nobody listens on, which takes all the
// tries, delays no other.
const DefaultParallel = 16

// Agent is what a listener does about one Change: subscribe to an agent,
// say it gone, or only say a line.
type Agent struct {
	// Label names the agent: the socket's file name without its
	// extension, when that is a valid label (agentspec.ValidLabel) as it
	// is, with nothing sanitizing would change, and (from Agents) no other
	// socket offered has it, in any case; else "" (the listener then names
	// it by its endpoint). So "\x1b[0mbank.sock" or "BANK.x" never takes
	// the label "bank" from bank.sock.
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
	// 1, before the pause (for tests). Agents calls it from several
	// goroutines at once.
	OnRefused func(path string, try int)
	// Parallel is how many new sockets Agents dials at once; 0 means
	// DefaultParallel.
	Parallel int
}

// Agents reports each change of changes (see Watch) as an Agent until
// changes closes or ctx ends; then the channel closes. A new socket is
// reported once it accepts connections (Agent); up to Parallel new sockets
// are dialled at once, and each is reported as soon as it is ready, so a
// socket nobody listens on holds back no other. A socket gone is reported
// gone only when it was reported; one gone while it was being dialled is
// not reported at all. Two sockets offered at once never share a label.
func (r Ready) Agents(ctx context.Context, changes <-chan Change) <-chan Agent {
	out := make(chan Agent)
	go r.agents(ctx, changes, out)
	return out
}

// probe is one new socket being dialled.
type probe struct {
	path   string
	cancel context.CancelFunc
}

// probed is what a probe found.
type probed struct {
	p *probe
	a Agent
}

func (r Ready) agents(ctx context.Context, changes <-chan Change, out chan<- Agent) {
	defer close(out)
	parallel := r.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	results := make(chan probed, parallel) // a probe never blocks on it
	probing := map[string]*probe{}         // by path
	offered := map[string]string{}         // path → its label ("" when none)
	labels := map[string]bool{}            // labels offered, in lower case
	var queue []Agent                      // to send, in order
	defer func() {
		for _, p := range probing {
			p.cancel()
		}
	}()
	in := changes
	for in != nil || len(probing) > 0 || len(queue) > 0 {
		var send chan<- Agent
		var next Agent
		if len(queue) > 0 {
			send, next = out, queue[0]
		}
		take := in
		if len(probing) >= parallel || len(queue) >= parallel {
			take = nil // back-pressure: the watcher keeps the rest
		}
		select {
		case <-ctx.Done():
			return
		case send <- next:
			queue = queue[1:]
		case ch, ok := <-take:
			switch {
			case !ok:
				in = nil
			case ch.Refused != "" || ch.Err != nil:
				queue = append(queue, Agent{Note: ch.String()})
			case ch.Gone:
				if p := probing[ch.Path]; p != nil {
					p.cancel() // never reported: nothing to say
					delete(probing, ch.Path)
					break
				}
				if label, ok := offered[ch.Path]; ok {
					delete(offered, ch.Path)
					delete(labels, strings.ToLower(label))
					queue = append(queue, Agent{Label: label, Endpoint: Endpoint(ch.Path), Gone: true})
				}
			default:
				if probing[ch.Path] != nil {
					break
				}
				pctx, cancel := context.WithCancel(ctx)
				p := &probe{path: ch.Path, cancel: cancel}
				probing[ch.Path] = p
				go func() { results <- probed{p, r.Agent(pctx, ch)} }()
			}
		case res := <-results:
			res.p.cancel()
			if probing[res.p.path] != res.p {
				break // gone meanwhile
			}
			delete(probing, res.p.path)
			a := res.a
			if a.Endpoint != "" {
				if a.Label != "" && labels[strings.ToLower(a.Label)] {
					a.Label = "" // another socket has it: named by its endpoint
				}
				if a.Label != "" {
					labels[strings.ToLower(a.Label)] = true
				}
				offered[res.p.path] = a.Label
			}
			queue = append(queue, a)
		}
	}
}

// Agent is the Agent of one change; for a new socket it returns once the
// socket accepts a connection, refuses it for another reason than nobody
// listening yet (the listener then says that reason when it subscribes),
// or the tries have run out: then it is only a line saying so.
func (r Ready) Agent(ctx context.Context, ch Change) Agent {
	if ch.Refused != "" || ch.Err != nil {
		return Agent{Note: ch.String()}
	}
	a := Agent{Endpoint: Endpoint(ch.Path), Gone: ch.Gone, Label: fileLabel(ch.Path)}
	if !ch.Gone && !r.await(ctx, ch.Path) && ctx.Err() == nil {
		return Agent{Note: fmt.Sprintf("Not subscribing to the agent %s: its socket refused all %d connections tried over %d milliseconds; restart the agent to try again.",
			Label(ch.Path), r.tries(), r.patience().Milliseconds())}
	}
	return a
}

// fileLabel is the label the socket at path gives its agent: its file name
// without its extension, when that is a valid label with nothing in it
// that sanitizing would change; else "".
func fileLabel(path string) string {
	base := filepath.Base(path)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "" || Label(path) != name || !agentspec.ValidLabel(name) {
		return ""
	}
	return name
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
