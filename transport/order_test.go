package transport

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A stream that ends after a burst of events: "reconnecting" is told only
// once Recv has returned every event of that stream, though the reader ran
// ahead and saw the end long before a slow consumer took them.
func TestStatusAfterQueuedFrames(t *testing.T) {
	const n = 40 // fewer than frameQueue: the reader queues them all and sees the end
	srv := oneStream(t, n)

	var rec recorder
	var statusAt []int // frames received when each status came
	received := 0
	var rmu sync.Mutex
	o := rec.opts(SSEOptions{Layout: LayoutLegacy})
	o.OnStatus = func(s Status, detail string) {
		rmu.Lock()
		statusAt = append(statusAt, received)
		rmu.Unlock()
		rec.onStatus(s, detail)
	}
	c := dial(t, srv.URL, o)
	for range n {
		time.Sleep(2 * time.Millisecond) // a consumer slower than the reader
		recvN(t, c, 1)
		rmu.Lock()
		received++
		rmu.Unlock()
	}
	recvErr(t, c)
	st := rec.statuses()
	rmu.Lock()
	defer rmu.Unlock()
	for i, s := range st {
		// Recv has handed out the last frame when the status comes; the
		// loop above may not have counted it yet.
		if strings.HasPrefix(s, "reconnecting") && statusAt[i] < n-1 {
			t.Errorf("%q told after %d of %d frames were received", s, statusAt[i], n)
		}
	}
	if !strings.Contains(strings.Join(st, "|"), "reconnecting") {
		t.Errorf("no reconnecting status: %q", st)
	}
}

// However long the consumer takes, the status that a stream ended waits
// for it to take the frames queued before it: no timer tells it early.
// The consumer here takes nothing until well past any such timer (the old
// one gave up after two seconds), then everything.
func TestStatusWaitsForASlowConsumer(t *testing.T) {
	srv := oneStream(t, 2)
	statuses := make(chan Status, 8)
	o := SSEOptions{Layout: LayoutLegacy, InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
		OnStatus: func(s Status, _ string) { statuses <- s }}
	c := dial(t, srv.URL, o)
	<-statuses // connecting
	<-statuses // connected
	select {
	case s := <-statuses:
		t.Fatalf("%v told while the consumer had taken none of the stream's frames", s)
	case <-time.After(2500 * time.Millisecond): // the window in which nothing may be told
	}
	recvN(t, c, 2)
	if s := <-statuses; s != StatusReconnecting {
		t.Errorf("after the frames: %v, want reconnecting", s)
	}
	recvErr(t, c)
}

// oneStream serves n events on the first stream, which then ends, and 204
// No Content (the producer has finished) to every later request.
func oneStream(t *testing.T, n int) *httptest.Server {
	var mu sync.Mutex
	streams := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		streams++
		first := streams == 1
		mu.Unlock()
		if !first {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		streamHeaders(w)
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "data: {\"i\":%d}\n\n", i)
		}
		write(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv
}
