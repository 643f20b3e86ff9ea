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
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/testpar"
	"github.com/aaep-term/aaep-term/internal/ttytest"
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

// runLevel3 runs the whole Level 3 catalogue against endpoint, fast.
func runLevel3(t testing.TB, endpoint string) *Report {
	t.Helper()
	return runWith(t, ProducerOptions{Endpoint: endpoint, Level: 3, Fast: true})
}

// runWith runs the producer tests as o says.
func runWith(t testing.TB, o ProducerOptions) *Report {
	t.Helper()
	endpoint := o.Endpoint
	o.Transport.GRPCBinding = grpcbind.Binding{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := TestProducer(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("Level %d against %s took %v", o.Level, endpoint, took.Round(time.Millisecond))
	if o.Level == 3 && o.Fast && took > time.Minute {
		t.Errorf("a fast Level 3 run took %v, more than the minute it may", took.Round(time.Millisecond))
	}
	return rep
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

func TestProducerSSE(t *testing.T) {
	t.Parallel()
	url := serveSSE(t, producer.Options{Speed: 1, Logf: t.Logf})
	wantAllPass(t, runLevel3(t, url))
}

func TestProducerWebSocket(t *testing.T) {
	t.Parallel()
	url := serveSSE(t, producer.Options{Speed: 1})
	wantAllPass(t, runLevel3(t, "ws"+strings.TrimPrefix(url, "http")+protocol.PathWebSocket))
}

func TestProducerUnix(t *testing.T) {
	t.Parallel()
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
	wantAllPass(t, runWith(t, ProducerOptions{Endpoint: "unix:" + path, Level: 3, Fast: true, Manifest: manifestFile(t)}))
}

func TestProducerGRPC(t *testing.T) {
	t.Parallel()
	p := producer.New(producer.Options{Scenarios: conformScenarios(t), Speed: 1, EndWhenDone: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := p.GRPCServer()
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(func() { p.Close(); gs.Stop() })
	wantAllPass(t, runLevel3(t, "grpc://"+ln.Addr().String()))
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
	testpar.Widen(6) // its tests mostly wait on peers and processes
	os.Exit(ttytest.Main(m))
}

func TestProducerStdio(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// env(1) sets the child's environment, not this process's: the test
	// may run in parallel.
	ep := "exec:" + transport.JoinCommand([]string{"env", stdioEnv + "=1", exe, "-test.run=^$"})
	// Over exec: every subscription is a process of its own: no other
	// subscription can see the default a close applies.
	wantAllPass(t, runWith(t, ProducerOptions{Endpoint: ep, Level: 3, Fast: true, Manifest: manifestFile(t)}), PCloseDefault)
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
