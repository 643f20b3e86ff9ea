package producer

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/browsertest"
)

// onmessagePage subscribes with EventSource.onmessage, as deployed browser
// subscribers do, and reports each event it receives to /seen: "message"
// for onmessage, "named" for an event only a listener of its name sees.
const onmessagePage = `<!doctype html><title>subscriber</title><script>
const tell = what => fetch('/seen', {method: 'POST', body: what});
const es = new EventSource('/events');
es.onmessage = e => tell('message ' + JSON.parse(e.data).type);
es.addEventListener('aaep.event', () => tell('named'));
</script>`

// A browser subscriber using EventSource.onmessage against the legacy
// layout's /events receives every event of the run.
func TestLegacyEventsReachOnmessage(t *testing.T) {
	browser := browsertest.Chromium(t)
	p := New(Options{Scenarios: scenarios(t, "happy"), Logf: t.Logf})
	seen := make(chan string)
	mux := http.NewServeMux()
	mux.Handle("/", p)
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, onmessagePage)
	})
	mux.HandleFunc("POST /seen", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case seen <- string(b):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		p.Close()
		srv.CloseClientConnections()
		srv.Close()
	})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, append(browsertest.Flags(t), "--remote-debugging-port=0", srv.URL+"/page")...)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		cmd.Wait()
	}()

	const want = 11 // the events of the happy scenario
	for got := 0; got < want; {
		select {
		case s := <-seen:
			if s == "named" {
				t.Fatal("an event came with an event name: onmessage does not see it")
			}
			got++
			t.Logf("%d: %s", got, s)
		case <-ctx.Done():
			t.Fatalf("onmessage saw %d of %d events before the time limit", got, want)
		}
	}
}
