package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A reader that found the queue full reads on only once Recv has taken it
// down to lowWater frames, so that it then reads a burst: woken at every
// frame taken, it ran in turn with Recv, a wake-up per frame.
func TestFullQueueReadsOnAtLowWater(t *testing.T) {
	p := newPump(false)
	for range frameQueue - 1 {
		if !p.put(Frame{}) {
			t.Fatal("put on a pump not closed failed")
		}
	}
	returned := make(chan struct{})
	go func() {
		p.put(Frame{}) // the queue is full: it waits
		close(returned)
	}()
	for p.queued() < frameQueue {
		runtime.Gosched()
	}
	for p.queued() > lowWater {
		if _, k := p.takeAll(nil, 1); k == 0 {
			t.Fatal("nothing to take")
		}
		runtime.Gosched() // a reader woken now would run now
		select {
		case <-returned:
			if n := p.queued(); n > lowWater {
				t.Fatalf("the reader read on with %d frames waiting, want at most %d", n, lowWater)
			}
		default:
		}
	}
	<-returned
}

// RecvBatch takes every frame waiting, up to its limit, in the order Recv
// would have returned them, and returns the end only once none is left.
func TestPumpRecvBatchTakesWhatWaits(t *testing.T) {
	p := newPump(false)
	for i := range 10 {
		p.put(Frame{ID: strconv.Itoa(i)})
	}
	ctx := context.Background()
	got, err := p.recvBatch(ctx, nil, 4)
	if err != nil || ids(got) != "0 1 2 3" {
		t.Fatalf("first batch of at most 4: %q, %v; want 0 1 2 3", ids(got), err)
	}
	f, err := p.recv(ctx)
	if err != nil || f.ID != "4" {
		t.Fatalf("Recv after the batch: %q, %v; want 4", f.ID, err)
	}
	got, err = p.recvBatch(ctx, got[:0], 64)
	if err != nil || ids(got) != "5 6 7 8 9" {
		t.Fatalf("second batch: %q, %v; want 5 6 7 8 9", ids(got), err)
	}
	p.put(Frame{ID: "10"})
	p.finish(io.EOF, EndNormal)
	got, err = p.recvBatch(ctx, got[:0], 0) // a limit below 1 is 1
	if err != nil || ids(got) != "10" {
		t.Fatalf("the frame queued before the end: %q, %v; want 10", ids(got), err)
	}
	if got, err = p.recvBatch(ctx, got[:0], 64); err != io.EOF || len(got) != 0 {
		t.Fatalf("after the last frame: %q, %v; want nothing and io.EOF", ids(got), err)
	}
}

// Over a real stream, batches and single frames together return every
// frame once, in the stream's order.
func TestSSERecvBatchKeepsOrder(t *testing.T) {
	t.Parallel()
	const n = 300
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "id: %d\ndata: {\"n\":%d}\n\n", i, i)
		}
		write(w, b.String())
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c := dial(t, srv.URL, SSEOptions{Layout: LayoutLegacy})
	br, ok := c.(BatchReceiver)
	if !ok {
		t.Fatal("an SSE connection is no BatchReceiver")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []Frame
	for turn := 0; len(got) < n; turn++ {
		if turn%3 == 2 {
			f, err := c.Recv(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, f)
			continue
		}
		before := len(got)
		var err error
		if got, err = br.RecvBatch(ctx, got, 7); err != nil {
			t.Fatal(err)
		}
		if k := len(got) - before; k < 1 || k > 7 {
			t.Fatalf("a batch of at most 7 held %d frames", k)
		}
	}
	for i, f := range got {
		if want := fmt.Sprintf(`{"n":%d}`, i); f.ID != strconv.Itoa(i) || string(f.Data) != want {
			t.Fatalf("frame %d is id %q, %s; want id %d, %s", i, f.ID, f.Data, i, want)
		}
	}
}

// ids lists the frames' IDs, separated by spaces.
func ids(fs []Frame) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.ID
	}
	return strings.Join(s, " ")
}

// A client takes a burst of 64 frames at once (subscriber's readBurst).
// A full queue leaves the next burst waiting after one is taken, and its
// reader is not woken for that burst: with a queue of one burst, the
// client found it empty after every burst taken and waited for the
// reader, a hand-off each way a burst.
func TestTakenBurstLeavesTheNextWaiting(t *testing.T) {
	const burst = 64
	p := newPump(false)
	for range frameQueue - 1 {
		p.put(Frame{Data: []byte("{}")})
	}
	woken := make(chan struct{})
	go func() {
		p.put(Frame{Data: []byte("{}")}) // the queue is full: it waits
		close(woken)
	}()
	for p.queued() < frameQueue {
		runtime.Gosched()
	}
	got, k := p.takeAll(nil, burst)
	if k != burst || len(got) != burst {
		t.Fatalf("took %d frames, want a burst of %d", k, burst)
	}
	if n := p.queued(); n < burst {
		t.Fatalf("%d frames left after a burst taken from a full queue, want at least another burst (%d)", n, burst)
	}
	select {
	case <-woken:
		t.Fatal("the reader was woken by one burst taken from a full queue")
	default:
	}
	for p.queued() > 0 {
		p.takeAll(nil, burst)
	}
	<-woken
}

// The frames waiting are bounded by their bytes too: a producer sending
// messages of 256 KiB has its reader wait with four of them queued
// (queueBytes), not frameQueue of them (64 MiB), and read on once Recv
// has taken them down to half.
func TestQueueBoundedByItsBytes(t *testing.T) {
	const size, full = 256 << 10, queueBytes / (256 << 10)
	p := newPump(false)
	returned := make(chan int, frameQueue)
	go func() {
		for i := 0; ; i++ {
			if !p.put(Frame{Data: make([]byte, size)}) {
				close(returned)
				return
			}
			returned <- i
		}
	}()
	// The fourth frame fills the queue's bytes: its put waits.
	for range full - 1 {
		<-returned
	}
	for p.queued() < full {
		runtime.Gosched()
	}
	for range 100 {
		runtime.Gosched() // a reader not waiting would queue more now
	}
	if n := p.queued(); n != full {
		t.Fatalf("%d frames of %d bytes queued, want %d", n, size, full)
	}
	// Taking one leaves three quarters of queueBytes: still over half.
	p.takeAll(nil, 1)
	for range 100 {
		runtime.Gosched()
	}
	select {
	case i := <-returned:
		t.Fatalf("put of frame %d returned with %d bytes waiting, want it waiting until half of %d", i, (full-1)*size, queueBytes)
	default:
	}
	p.takeAll(nil, 1) // half: the reader reads on
	if i := <-returned; i != full-1 {
		t.Fatalf("put of frame %d returned next, want %d", i, full-1)
	}
	p.close()
	for range returned {
	}
}
