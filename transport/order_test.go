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
	var mu sync.Mutex
	streams := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		streams++
		first := streams == 1
		mu.Unlock()
		if !first {
			w.WriteHeader(http.StatusNoContent) // the producer has finished
			return
		}
		streamHeaders(w)
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "data: {\"i\":%d}\n\n", i)
		}
		write(w, b.String())
	}))
	defer srv.Close()

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
