package conform

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
)

// conformScenarios loads the scenarios that exercise every producer test.
func conformScenarios(t testing.TB) []producer.Scenario {
	t.Helper()
	all, err := producer.LoadScenarios(os.DirFS("testdata/scenarios"), ".")
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

// runLevel3 runs the whole Level 3 catalogue against endpoint, fast.
func runLevel3(t testing.TB, endpoint string) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := TestProducer(ctx, ProducerOptions{Endpoint: endpoint, Level: 3, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Level 3 against %s took %v", endpoint, time.Since(start).Round(time.Millisecond))
	return rep
}

// wantAllPass fails for every result that is not a pass.
func wantAllPass(t *testing.T, rep *Report) {
	t.Helper()
	if n := len(rep.Results); n != len(ProducerTests()) {
		t.Errorf("%d results, want %d", n, len(ProducerTests()))
	}
	for _, r := range rep.Results {
		t.Logf("%s %s: %s", r.Status, r.ID, r.Detail)
		if r.Status != Pass {
			t.Errorf("%s: %s: %s", r.ID, r.Status, r.Detail)
			for _, e := range r.Evidence {
				t.Logf("    %v %s %s %s", e.At, e.Dir, e.Note, e.Frame)
			}
		}
	}
}

func TestProducerSSE(t *testing.T) {
	url := serveSSE(t, producer.Options{Speed: 1, Logf: t.Logf})
	wantAllPass(t, runLevel3(t, url))
}
