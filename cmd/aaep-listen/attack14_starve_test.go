package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// stallProducer sends half an event and then nothing, holding the
// connection open until the test ends: a producer stalled mid-frame.
// A second one sends a 1 MB event line (more than a frame may hold).
func stallProducer(t *testing.T, body string) string {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
		w.(http.Flusher).Flush()
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	return srv.URL
}

// An honest agent's critical event is announced while a hostile agent's
// flood is still being written (before its last line), with two more
// hostile agents beside it: one stalled mid-frame, one sending a 1 MB
// event. Order, not time: the alarm is sent once the flood's first lines
// are out, and must be written before the flood's end.
func TestAttack14CriticalEventNotStarvedByHostileAgents(t *testing.T) {
	t.Parallel()
	const flood = 40000
	alarm := newAlarmProducer(t, "honest")
	watch := &alarmWatch{seen: make(chan time.Duration, 4)}
	out := &countdown{next: watch, left: 200, reached: make(chan struct{})}
	stop := runListener(t, out, io.Discard, "--plain", "--no-sign", "--verbosity", "terse",
		"flood="+floodProducer(t, flood),
		"stall="+stallProducer(t, `data: {"@context": "https://aaep`),
		"big="+stallProducer(t, "data: {\"type\": \""+strings.Repeat("x", 1<<20)+"\"}\n\n"),
		"honest="+alarm.srv.URL)
	defer stop()
	<-out.reached // the flood is under way
	alarm.send <- time.Now()
	<-watch.seen
	watch.mu.Lock()
	n := watch.lines
	watch.mu.Unlock()
	if n >= flood {
		t.Fatalf("the honest agent's critical event came after %d lines, the flood's whole %d", n, flood)
	}
	t.Logf("alarm written after %d of the flood's %d lines", n, flood)
}

// countdown passes writes on to next and closes reached once left lines
// have gone through (writes come from the listener's one writer).
type countdown struct {
	next    io.Writer
	left    int
	reached chan struct{}
}

func (c *countdown) Write(p []byte) (int, error) {
	if c.left > 0 {
		if c.left -= strings.Count(string(p), "\n"); c.left <= 0 {
			close(c.reached)
		}
	}
	return c.next.Write(p)
}
