// Package browsertest finds a headless Chromium for tests that need a real
// browser (the HTML report, EventSource subscribers).
package browsertest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Chromium returns the path of a Chromium to run headless. Under CI a
// missing browser fails the test (scripts/test installs it); elsewhere it
// skips it.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is needed for this test (scripts/test installs it)")
	}
	t.Skip("chromium not installed")
	return ""
}

// Flags are the command-line flags of a quiet headless run with its
// profile in the directory profile; the page and any extra flags follow.
func Flags(profile string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + profile}
}

// onmessagePage subscribes with EventSource.onmessage, as deployed browser
// subscribers do, and reports each event it receives to /seen: "message"
// for onmessage, "named" for an event only a listener of its name sees.
const onmessagePage = `<!doctype html><title>subscriber</title><script>
const tell = what => fetch('/seen', {method: 'POST', body: what});
const es = new EventSource('/events');
es.onmessage = e => tell('message ' + JSON.parse(e.data).type);
es.addEventListener('aaep.event', () => tell('named'));
</script>`

// Onmessage opens, in headless Chromium, a page on the same origin as
// producer whose EventSource on /events listens with onmessage, and waits
// until it has received want events. It fails the test on an event that
// has a name (onmessage never sees those) or when a minute passes first.
// close, if not nil, is called before the server shuts down, to end its
// streams.
func Onmessage(t *testing.T, producer http.Handler, want int, close func()) {
	t.Helper()
	browser := Chromium(t)
	seen := make(chan string)
	mux := http.NewServeMux()
	mux.Handle("/", producer)
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, onmessagePage)
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
		if close != nil {
			close()
		}
		srv.CloseClientConnections()
		srv.Close()
	})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stop := open(t, ctx, browser, srv.URL+"/page")
	defer stop()
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

// open runs browser headless on url until ctx ends or stop is called; stop
// returns once it has ended.
func open(t *testing.T, ctx context.Context, browser, url string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	// The profile is removed as well as can be: Chromium's helper
	// processes may still be writing to it as the test ends.
	profile, err := os.MkdirTemp("", "browsertest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	flags := append(Flags(profile), "--remote-debugging-port=0", url)
	cmd := exec.CommandContext(ctx, browser, flags...)
	// Chromium and its helpers form a process group of their own, told to
	// end together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	return func() {
		cancel()
		_ = cmd.Wait()
	}
}

// Page is a page on an origin of its own (a loopback server that ends
// with the test), for a browser to open: what its script POSTs to its own
// /seen arrives on Seen, one body each.
type Page struct {
	Origin string        // "http://127.0.0.1:PORT"
	Seen   <-chan string // the bodies POSTed to /seen

	t    *testing.T
	html chan string
}

// NewPage serves a page whose HTML Open gives.
func NewPage(t *testing.T) *Page {
	t.Helper()
	seen := make(chan string)
	done := make(chan struct{})
	pg := &Page{Seen: seen, t: t, html: make(chan string, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) {
		html := <-pg.html
		pg.html <- html
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, html)
	})
	mux.HandleFunc("POST /seen", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		select {
		case seen <- string(b):
		case <-done:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	pg.Origin = srv.URL
	t.Cleanup(func() {
		close(done)
		srv.CloseClientConnections()
		srv.Close()
	})
	return pg
}

// Open opens the page, with html as its content, in headless Chromium,
// which runs until the test ends. The page names any other origin it
// talks to in full.
func (pg *Page) Open(html string) {
	pg.t.Helper()
	browser := Chromium(pg.t)
	pg.html <- html
	stop := open(pg.t, context.Background(), browser, pg.Origin+"/page")
	pg.t.Cleanup(stop)
}
