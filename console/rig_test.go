package console

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// testConfig is a console's configuration as aaep-listen settles it for
// agents that may answer, without signing.
func testConfig(multi bool) Config {
	tio, _, _, _ := term.Test()
	return Config{
		Name: "aaep-listen", IO: tio, Now: time.Now, Multi: multi,
		Announce: announce.Config{Verbosity: "normal"},
		Terms:    session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
		Client: func(spec AgentSpec) subscriber.Config {
			return subscriber.Config{Identity: session.Identity{ID: "test", Name: "aaep-listen"},
				Gate: policy.NewGate(nil, false), NoSignerWords: "--no-sign", Now: time.Now}
		},
	}
}

// idleConn is a connection that brings nothing until its client ends.
type idleConn struct{}

func (idleConn) Recv(ctx context.Context) (transport.Frame, error) {
	<-ctx.Done()
	return transport.Frame{}, ctx.Err()
}
func (idleConn) Send(context.Context, []byte) error { return nil }
func (idleConn) Close() error                       { return nil }

// rig is a console of the agents args name (ENDPOINT or LABEL=ENDPOINT),
// each over a connection that brings nothing, its lines written as the
// user reads them.
type rig struct {
	*Listener
	out *strings.Builder
}

func newRig(t *testing.T, args ...string) *rig {
	parsed, err := agentspec.ParseAll(args)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(len(parsed) > 1 || len(parsed) == 1 && parsed[0].Label != "")
	out := &strings.Builder{}
	l := New(cfg, line.NewWriter(out, nil, line.WriterOptions{NoTime: true}))
	ctx, cancel := context.WithCancel(context.Background())
	for _, p := range parsed {
		spec := AgentSpec{Label: p.Label, Endpoint: p.Endpoint, Terms: cfg.Terms}
		c := l.Join(spec, func(cfg subscriber.Config) *subscriber.Client { return subscriber.New(ctx, idleConn{}, "", cfg) }).Client()
		t.Cleanup(func() { <-c.Done() })
	}
	t.Cleanup(cancel)
	return &rig{Listener: l, out: out}
}

// command carries out a typed line and tells what came of it.
func (r *rig) command(s string) {
	r.Command(context.Background(), s)
	r.Drain()
}

// serve serves the demo scenarios named on loopback until the test ends.
func serve(t *testing.T, names ...string) string {
	t.Helper()
	all, err := producer.LoadScenarios(os.DirFS("../demo"), "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	var sel []producer.Scenario
	if len(names) > 0 {
		if sel, err = producer.SelectScenarios(all, names); err != nil {
			t.Fatal(err)
		}
	}
	p := producer.New(producer.Options{Scenarios: sel, EndWhenDone: true})
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	return srv.URL
}

// nextBatch waits for the next batch of the console's agents' updates,
// one with a critical update first, as Run takes them.
func (r *rig) nextBatch() subscriber.Batch {
	for {
		if b, ok := r.group.TakeCritical(); ok {
			return b
		}
		if b, ok := r.group.Take(); ok {
			return b
		}
		<-r.group.Ready()
	}
}
