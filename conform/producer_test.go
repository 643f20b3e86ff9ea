package conform

import (
	"context"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// conformScenarios loads the scenarios that exercise every producer test.
func conformScenarios(t testing.TB) []producer.Scenario {
	t.Helper()
	all, err := TargetScenarios()
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// serveSSE starts our producer with opts on a loopback HTTP server.
func serveSSE(t testing.TB, opts producer.Options) string {
	t.Helper()
	if opts.Scenarios == nil {
		opts.Scenarios = conformScenarios(t)
	}
	opts.EndWhenDone = true
	p := producer.New(opts)
	srv := httptest.NewServer(p)
	t.Cleanup(func() { p.Close(); srv.Close() })
	return srv.URL
}

// manifestFile writes the manifest our producer serves over HTTP to a
// file, where a local transport's manifest is documented.
func manifestFile(t testing.TB) string {
	t.Helper()
	p := producer.New(producer.Options{Scenarios: conformScenarios(t)})
	defer p.Close()
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, httptest.NewRequest("GET", protocol.PathManifest, nil))
	if rec.Code != 200 {
		t.Fatalf("manifest: %d %s", rec.Code, rec.Body)
	}
	name := filepath.Join(t.TempDir(), "aaep-manifest.json")
	if err := os.WriteFile(name, rec.Body.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// runWith runs the producer tests as o says.
func runWith(t testing.TB, o ProducerOptions) *Report {
	t.Helper()
	rep, took, err := runProducer(o)
	if err != nil {
		t.Fatal(err)
	}
	checkTook(t, o, took)
	return rep
}

// runProducer runs the producer tests as o says, reaching gRPC endpoints
// too, and says how long the run took.
func runProducer(o ProducerOptions) (*Report, time.Duration, error) {
	o.Transport.GRPCBinding = grpcbind.Binding{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := TestProducer(ctx, o)
	return rep, time.Since(start), err
}

// checkTook logs how long the run of o took and fails a fast Level 3 run
// that took more than a minute.
func checkTook(t testing.TB, o ProducerOptions, took time.Duration) {
	t.Helper()
	t.Logf("Level %d against %s took %v", o.Level, o.Endpoint, took.Round(time.Millisecond))
	if o.Level == 3 && o.Fast && took > time.Minute {
		t.Errorf("a fast Level 3 run took %v, more than the minute it may", took.Round(time.Millisecond))
	}
}

// wantAllPass fails for every result that is not a pass, but the skips
// named.
func wantAllPass(t *testing.T, rep *Report, skips ...string) {
	t.Helper()
	want := 0
	for _, tt := range ProducerTests() {
		if tt.Level <= rep.Level {
			want++
		}
	}
	if n := len(rep.Results); n != want {
		t.Errorf("%d results, want %d", n, want)
	}
	for _, r := range rep.Results {
		t.Logf("%s %s: %s", r.Status, r.ID, r.Detail)
		if r.Status != Pass && !(r.Status == Skip && slices.Contains(skips, r.ID)) {
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Detail)
			for _, e := range r.Evidence {
				t.Logf("    %v %s %s %s", e.At, e.Dir, e.Note, e.Frame)
			}
		}
	}
}

// TestProducerBindings runs the whole Level 3 catalogue against our
// producer over each binding, on real sockets and a real process: every
// test passes. The runs spend their time waiting on the producer (the
// holds, a prompt's timeout, the quiet at the end), so they are started
// together, as the mutants are, rather than gated by -parallel (two at a
// time on two cores).
func TestProducerBindings(t *testing.T) {
	t.Parallel()
	bindings := []struct {
		name  string
		serve func(t *testing.T) ProducerOptions // the endpoint, served until t ends
		skips []string
	}{
		{"sse", func(t *testing.T) ProducerOptions {
			return ProducerOptions{Endpoint: serveSSE(t, producer.Options{Speed: 1, Logf: t.Logf})}
		}, nil},
		{"websocket", func(t *testing.T) ProducerOptions {
			url := serveSSE(t, producer.Options{Speed: 1})
			return ProducerOptions{Endpoint: "ws" + strings.TrimPrefix(url, "http") + protocol.PathWebSocket}
		}, nil},
		{"unix", serveUnix, nil},
		{"grpc", serveGRPC, nil},
		// Over exec: every subscription is a process of its own: no other
		// subscription can see the default a close applies.
		{"stdio", serveStdio, []string{PCloseDefault}},
	}
	type outcome struct {
		o    ProducerOptions
		rep  *Report
		took time.Duration
		err  error
	}
	done := make([]outcome, len(bindings))
	var wg sync.WaitGroup
	for i, b := range bindings {
		o := b.serve(t)
		o.Level, o.Fast = 3, true
		wg.Go(func() {
			rep, took, err := runProducer(o)
			done[i] = outcome{o, rep, took, err}
		})
	}
	wg.Wait()
	for i, b := range bindings {
		t.Run(b.name, func(t *testing.T) {
			d := done[i]
			if d.err != nil {
				t.Fatal(d.err)
			}
			checkTook(t, d.o, d.took)
			wantAllPass(t, d.rep, b.skips...)
		})
	}
}

// serveUnix serves our producer on a Unix socket; its manifest is
// documented in a file.
func serveUnix(t *testing.T) ProducerOptions {
	p := producer.New(producer.Options{Scenarios: conformScenarios(t), Speed: 1, EndWhenDone: true})
	path := filepath.Join(t.TempDir(), "aaep.sock")
	ln, err := producer.ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.ServeUnix(ctx, ln) }()
	t.Cleanup(func() { p.Close(); cancel(); <-done })
	return ProducerOptions{Endpoint: "unix:" + path, Manifest: manifestFile(t)}
}

// serveGRPC serves our producer over gRPC on a loopback port.
func serveGRPC(t *testing.T) ProducerOptions {
	p := producer.New(producer.Options{Scenarios: conformScenarios(t), Speed: 1, EndWhenDone: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := p.GRPCServer()
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(func() { p.Close(); gs.Stop() })
	return ProducerOptions{Endpoint: "grpc://" + ln.Addr().String()}
}

// stdioEnv makes the test binary a stdio producer of the conformance
// scenarios (see TestMain).
const stdioEnv = "AAEP_CONFORM_STDIO_PRODUCER"

// TestMain runs the test binary as a stdio producer when stdioEnv is set,
// so exec: is tested against a process of its own.
func TestMain(m *testing.M) {
	if runFake() {
		os.Exit(0)
	}
	if os.Getenv(stdioEnv) != "" {
		all, err := TargetScenarios()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		p := producer.New(producer.Options{Scenarios: all, Speed: 1, EndWhenDone: true})
		if err := p.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveStdio is the endpoint that runs the test binary as a stdio producer
// (see TestMain); its manifest is documented in a file.
func serveStdio(t *testing.T) ProducerOptions {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// env(1) sets the child's environment, not this process's: the test
	// may run in parallel.
	ep := "exec:" + transport.JoinCommand([]string{"env", stdioEnv + "=1", exe, "-test.run=^$"})
	return ProducerOptions{Endpoint: ep, Manifest: manifestFile(t)}
}

// TestProducerBreaks runs the Level 3 catalogue against our producer broken
// in one way at a time: each break fails exactly its test, and no other.
func TestProducerBreaks(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		// The tool announced first also comes in a state that is not
		// calling_tool.
		producer.BreakToolFirst:    {PConfirmBlocks, PStateChanges},
		producer.BreakIgnoreReject: {PRejectPrevents},
		producer.BreakNoTimeout:    {PTimeoutDefault},
		producer.BreakForgedToken:  {PForgedToken},
		producer.BreakWrongKind:    {PWrongKind},
		producer.BreakRate:         {PRate},
		producer.BreakExclude:      {PFilters},
		producer.BreakHonorsMore:   {PHonoredSubset},
		producer.BreakRenegotiate:  {PRenegotiate},
		// A prompt never settled leaves its session without an end.
		producer.BreakNoCloseDefault: {PCloseDefault, POneTerminal},
	}
	for _, name := range producer.Breaks {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fails, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for break %s", name)
			}
			rep := runMem(t, producer.Options{Speed: 1, Break: name}, ProducerOptions{Level: 3, Fast: true})
			for _, r := range rep.Results {
				wanted := slices.Contains(fails, r.ID)
				switch {
				case wanted && r.Status != Fail:
					t.Errorf("%s: %s (%s), want fail", r.ID, r.Status, r.Detail)
				case !wanted && r.Status != Pass:
					t.Errorf("%s: %s (%s), want pass", r.ID, r.Status, r.Detail)
				case wanted:
					t.Logf("%s fails as it should: %s", r.ID, r.Detail)
				}
			}
		})
	}
}

// TestProducerAnyOrder: prompts are found in the stream, whatever order
// the sessions come in: the short prompt takes the timeout step wherever
// it comes, the last long one the close.
func TestProducerAnyOrder(t *testing.T) {
	t.Parallel()
	byName := map[string]producer.Scenario{}
	for _, sc := range conformScenarios(t) {
		byName[sc.Name] = sc
	}
	var scs []producer.Scenario
	for _, name := range []string{"timeout", "clarify", "error", "reject", "accept", "close"} {
		scs = append(scs, byName[name])
	}
	wantAllPass(t, runMem(t, producer.Options{Scenarios: scs, Speed: 1}, ProducerOptions{Level: 3, Fast: true}))
}
