package console

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// writes passes on each write made to it.
type writes chan string

func (w writes) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// burstConn is a connection that brings its frames, then nothing until
// its client ends; queued is closed once every frame was taken (Recv is
// called again: the last frame is in the client's inbox).
type burstConn struct {
	frames [][]byte
	queued chan struct{}
}

func (c *burstConn) Recv(ctx context.Context) (transport.Frame, error) {
	if len(c.frames) > 0 {
		f := c.frames[0]
		c.frames = c.frames[1:]
		return transport.Frame{Data: f, At: time.Now()}, nil
	}
	close(c.queued)
	<-ctx.Done()
	return transport.Frame{}, ctx.Err()
}
func (*burstConn) Send(context.Context, []byte) error { return nil }
func (*burstConn) Close() error                       { return nil }

// eventFrame is event n of agent, its summary says, critical or not.
func eventFrame(agent string, n int, says string, critical bool) []byte {
	urgency := "normal"
	if critical {
		urgency = "critical"
	}
	return fmt.Appendf(nil, `{"@context":%q,"aaep_version":"1.0.0","type":"progress.updated","event_id":"evt_%s%d","session_id":"sess_%s",`+
		`"sequence_number":%d,"timestamp":"2026-11-29T10:00:00Z","producer":{"agent_id":%q},"urgency":%q,"summary_normal":%q,"progress":{"step":%d}}`,
		protocol.ContextURL, agent, n, agent, n, agent, urgency, says, n+1)
}

// A burst of several agents' updates is written once, not once per agent:
// the lines of a critical update first, at once, with its own agent's
// lines before it and no other's, then all the rest together.
func TestBurstWrittenOnceCriticalFirst(t *testing.T) {
	t.Parallel()
	out := make(writes, 64)
	l := New(testConfig(true), line.NewWriter(out, nil, line.WriterOptions{NoTime: true}))
	typed := make(chan command.Command, 1)
	l.input = typed
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	want := []string{"Alarm of d.", "After the alarm of d."}
	for _, a := range []string{"a", "b", "c", "d", "e"} {
		conn := &burstConn{frames: [][]byte{eventFrame(a, 0, "Step of "+a+".", false)}, queued: make(chan struct{})}
		if a == "d" {
			conn.frames = append(conn.frames, eventFrame("d", 1, "Alarm of d.", true), eventFrame("d", 2, "After the alarm of d.", false))
		}
		want = append(want, "Step of "+a+".")
		m := l.Join(AgentSpec{Label: a, Endpoint: "file:" + a}, func(cfg subscriber.Config) *subscriber.Client {
			return subscriber.New(ctx, conn, "", cfg)
		})
		<-conn.queued
		if err := m.Client().Sync(ctx); err != nil { // every frame handled: the updates are queued
			t.Fatal(err)
		}
		l.group.Feed(m)
	}
	ran := make(chan error, 1)
	go func() { ran <- l.Run(ctx) }()
	var each []string
	for {
		each = append(each, <-out)
		all := strings.Join(each, "")
		missing := slices.ContainsFunc(want, func(s string) bool { return !strings.Contains(all, s) })
		if !missing {
			if i, j := strings.Index(all, "Alarm of d."), strings.Index(all, "After the alarm of d."); j < i {
				t.Errorf("d's lines out of order:\n%s", all)
			}
			break
		}
	}
	typed <- command.Command{Verb: command.VerbQuit}
	go func() {
		for range out { // the ends said
		}
	}()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	close(out)
	if len(each) != 2 {
		t.Fatalf("%d writes, want 2 (the critical line with its agent's before it, then the rest):\n%q", len(each), each)
	}
	if first := each[0]; !strings.Contains(first, "Step of d.") || strings.Count(first, "\n") != 2 {
		t.Fatalf("the first write is %q, want the alarm of d and d's line before it, nothing else", first)
	}
}
