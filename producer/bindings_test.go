package producer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
)

// ServeBindings serves runs on every listener it is given, and says each
// endpoint: a real subscriber hears a whole run, prompt answered, at each
// URL it names (WebSocket on the HTTP listener), and Wait returns nil once
// its context ends. Before, each command (aaep-replay serve, aaep-conform
// target, aaep-bridge) had a loop of its own for this.
func TestServeBindingsServesEveryBinding(t *testing.T) {
	t.Parallel()
	runs := producer.NewRuns(func() *producer.Producer { return confirmProducer(t) }, t.Logf)
	http := listen(t, producer.BindingHTTP)
	grpc, err := producer.ListenBeside(http)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := producer.ServeBindings(runs, producer.Listeners{HTTP: http, GRPC: grpc, Unix: listen(t, producer.BindingUnix)})
	if err != nil {
		t.Fatal(err)
	}
	urls := srv.URLs()
	want := []string{"http://", "ws://", "grpc://", "unix:"}
	if len(urls) != len(want) {
		t.Fatalf("URLs %q, want one each of %q", urls, want)
	}
	for i, url := range urls {
		if !strings.HasPrefix(url, want[i]) {
			t.Fatalf("URL %d is %q, want %s…", i, url, want[i])
		}
		// Each subscriber hears its run to the end; the next one starts
		// a fresh run. One that comes just as the last stream leaves is
		// told the run has finished, and comes again, as any would.
		replied, completed := hearRun(t, url)
		for try := 0; !replied && !completed && i > 0 && try < 50; try++ {
			replied, completed = hearRun(t, url)
		}
		if !replied || !completed {
			t.Fatalf("%s: replied %v, session completed %v", url, replied, completed)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := srv.Wait(ctx, nil); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	select {
	case <-runs.Current().Done():
	default:
		t.Fatal("the runs are still open once Wait has stopped the servers")
	}
}
